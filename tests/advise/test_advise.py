"""``advise``: each small fleet gets the mechanism the premise's table gives it, with the model change and the answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from gpufleet.advise import SWITCH_NOTE, advise
from gpufleet.kubetypes.vocab import DEDICATED_KEY
from tests.model.builders import FleetBuilder

KEY = DEDICATED_KEY
# The model change that gives the pool 'gpu' (whose nodeLabels name no provider and no rack) the one level its nodes
# are sure to carry: the host, which the kubelet sets.
TAS_LEVELS = "pools[0].topologyLevels: [kubernetes.io/hostname]"


def job(ns: str, pods: int, gpus_per_pod: int = 8, elastic: bool = False, name: str = "train") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": ns}
    if elastic:
        meta["annotations"] = {"gpufleet.dev/elastic": "true"}
    container = {"name": "w", "image": "t:1", "resources": {"limits": {"nvidia.com/gpu": gpus_per_pod}}}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta,
        "spec": {
            "parallelism": pods,
            "completions": pods,
            "template": {"spec": {"restartPolicy": "Never", "containers": [container]}},
        },
    }


def vcjob(ns: str, pods: int) -> dict[str, Any]:
    container = {"name": "w", "image": "t:1", "resources": {"limits": {"nvidia.com/gpu": 8}}}
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "vc", "namespace": ns},
        "spec": {"tasks": [{"name": "w", "replicas": pods, "template": {"spec": {"containers": [container]}}}]},
    }


def one_pool(system: str = "kueue", nodes: int = 2, teams: int = 1, **pool: Any) -> FleetBuilder:
    """A fleet with the single pool 'gpu' (nodes x 8 GPUs) shared by ``teams`` teams t0.. (in one cohort when several)."""
    b = FleetBuilder.empty().with_pool("gpu", system, nodes=nodes, **pool)
    if teams > 1:
        b = b.with_cohort("all")
    share = nodes * 8 // max(teams, 1)
    for i in range(teams):
        b = b.with_team(f"t{i}", cohort="all" if teams > 1 else None, quota={"gpu": {"nominal": share}})
    return b


@dataclass(frozen=True)
class Row:
    id: str
    fleet: FleetBuilder
    jobs: list = field(default_factory=list)
    mechanism: str = ""
    change: str = "none"
    contention: str = ""


ROWS = [
    Row(
        "one team on a small pool: coscheduling",
        one_pool(nodes=2),
        [job("t0", 2)],
        "coscheduling",
        "pools[0].system: coscheduling",
        "fragmentation",
    ),
    Row(
        "one team on a small coscheduling pool already: keep it",
        one_pool("coscheduling", nodes=2),
        [job("t0", 2)],
        "coscheduling",
        "none",
        "fragmentation",
    ),
    Row(
        "one team on a small pool that also holds another pool: Volcano (gang and placement, one engine for all its pools)",
        one_pool(nodes=2).with_pool("more", nodes=2).set("teams[0].quota.more", {"nominal": 8}),
        [],
        "volcano",
        "pools[0].system: volcano",
        "fragmentation",
    ),
    Row(
        "one team on a large pool with node-sized jobs: Volcano",
        one_pool(nodes=64),
        [job("t0", 1)],
        "volcano",
        "pools[0].system: volcano",
        "fragmentation",
    ),
    Row(
        "one team alone on a 256-GPU pool: Volcano, not plain Kueue",
        one_pool(nodes=32),
        [],
        "volcano",
        "pools[0].system: volcano",
        "fragmentation",
    ),
    Row(
        "many teams on a 10,000-GPU pool with a 512-GPU job: the free block is one rack or block, not 10% of the pool",
        one_pool(nodes=1250, teams=4),
        [job("t1", 64)],
        "kueue+tas",
        TAS_LEVELS,
        "contention",
    ),
    Row(
        "many teams on a large pool, no jobs given: Kueue for admission plus gang placement",
        one_pool(nodes=1250, teams=4),
        [],
        "kueue+tas",
        TAS_LEVELS,
        "contention",
    ),
    Row(
        "many teams sharing a pool with 512-GPU jobs: Kueue with atomic placement",
        one_pool(nodes=128, teams=4),
        [job("t1", 64), job("t2", 2)],
        "kueue+tas",
        TAS_LEVELS,
        "contention",
    ),
    Row(
        "many teams on a Volcano pool with a job above the free block: move to Kueue with TAS",
        one_pool("volcano", nodes=16, teams=2),
        [job("t0", 4)],
        "kueue+tas",
        f"pools[0].system: kueue; {TAS_LEVELS}",
        "contention",
    ),
    Row(
        "many teams on a Volcano pool whose large jobs are Volcano Jobs: keep Volcano (Kueue never admits them)",
        one_pool("volcano", nodes=16, teams=2),
        [vcjob("t0", 4), vcjob("t1", 2)],
        "volcano",
        "none",
        "contention",
    ),
    Row(
        "many teams on a Kueue pool whose large jobs are Volcano Jobs: Volcano, not Kueue with TAS",
        one_pool(nodes=16, teams=2),
        [vcjob("t0", 4)],
        "volcano",
        "pools[0].system: volcano",
        "contention",
    ),
    Row(
        "many teams with mostly batch Jobs and one Volcano Job above the free block: Kueue with TAS",
        one_pool("volcano", nodes=16, teams=2),
        [vcjob("t0", 4), job("t0", 2), job("t1", 2)],
        "kueue+tas",
        f"pools[0].system: kueue; {TAS_LEVELS}",
        "contention",
    ),
    Row(
        "many teams with small jobs: Kueue",
        one_pool(nodes=64, teams=3),
        [job("t0", 2), job("t1", 4)],
        "kueue",
        "none",
        "contention",
    ),
    Row(
        "many teams with elastic jobs: Volcano",
        one_pool(nodes=64, teams=3),
        [job("t0", 4, elastic=True)],
        "volcano",
        "pools[0].system: volcano",
        "contention",
    ),
    Row(
        "many teams submitting Volcano Jobs: Volcano",
        one_pool(nodes=64, teams=2),
        [vcjob("t0", 2)],
        "volcano",
        "pools[0].system: volcano",
        "contention",
    ),
    Row(
        "many teams already on Volcano, no jobs given: keep Volcano",
        one_pool("volcano", nodes=8, teams=2),
        [],
        "volcano",
        "none",
        "contention",
    ),
    Row(
        "a Kueue pool with topology levels keeps them",
        one_pool(nodes=64, teams=2, topologyLevels=["kubernetes.io/hostname"]),
        [],
        "kueue+tas",
        "none",
        "contention",
    ),
    Row(
        "a dedicated pool stays static (compliance is the model's call)",
        one_pool(
            nodes=2,
            dedicatedTo="t0",
            nodeLabels={KEY: "t0"},
            taints=[{"key": KEY, "value": "t0"}],
            tolerations=[{"key": KEY, "operator": "Exists"}],
        ),
        [job("t0", 2)],
        "static",
        "none",
        "fragmentation",
    ),
    Row(
        "a pool nobody holds quota on: nothing to choose",
        FleetBuilder.empty().with_pool("gpu").with_team("t0", quota={}),
        [],
        "none",
        "none",
        "unused",
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_each_fleet_gets_the_mechanism_of_the_premise_table(row: Row) -> None:
    fleet = row.fleet.model()
    [pool] = [p for p in advise(fleet, row.jobs).pools if p.pool == "gpu"]
    assert (pool.mechanism, pool.change, pool.contention) == (row.mechanism, row.change, row.contention), pool.reason
    assert pool.reason and pool.control_plane


def test_the_answers_name_the_largest_job_the_free_block_and_the_elastic_jobs() -> None:
    fleet = one_pool(nodes=40, teams=2).model()
    [pool] = advise(fleet, [job("t0", 8, elastic=True, name="el"), job("t1", 2)]).pools
    assert (pool.largest_job_gpus, pool.free_block_gpus, pool.elastic_jobs) == (64, 32, ["t0/el"])


def test_a_larger_free_fraction_lets_the_same_job_fit() -> None:
    from decimal import Decimal

    fleet = one_pool(nodes=40, teams=2).model()
    jobs = [job("t0", 8)]
    assert advise(fleet, jobs).pools[0].mechanism == "kueue+tas"
    assert advise(fleet, jobs, free_fraction=Decimal("0.25")).pools[0].mechanism == "kueue"


def test_objects_outside_every_team_are_skipped_not_guessed() -> None:
    result = advise(
        one_pool().model(), [job("elsewhere", 4), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}]
    )
    assert (result.jobs, result.skipped) == (0, 2)


def test_the_control_plane_answer_says_when_the_mechanism_is_new_to_the_fleet() -> None:
    [pool] = advise(one_pool(nodes=2).model()).pools
    assert pool.mechanism == "coscheduling" and "new for this fleet" in pool.control_plane


def test_a_recommended_system_switch_of_a_pool_teams_use_says_it_cannot_apply_in_one_step():
    fleet = one_pool(nodes=2).model()
    [pool] = advise(fleet, []).pools
    assert pool.change == "pools[0].system: coscheduling" and pool.reason.endswith(SWITCH_NOTE)


def test_a_pool_that_keeps_its_system_gets_no_switch_note():
    fleet = one_pool(nodes=64, teams=3).model()
    [pool] = advise(fleet, []).pools
    assert pool.change == "none" and SWITCH_NOTE not in pool.reason


def test_the_reasons_come_from_the_four_questions_not_from_a_limit_of_gpufleets_modes() -> None:
    for builder in (
        one_pool(nodes=32),
        one_pool(nodes=2).with_pool("more", nodes=2).set("teams[0].quota.more", {"nominal": 8}),
    ):
        [pool] = [p for p in advise(builder.model()).pools if p.pool == "gpu"]
        assert "fragmentation" in pool.reason and "larger than a small cluster" not in pool.reason
        assert "would take over" not in pool.reason


def test_the_free_block_is_capped_at_one_block_of_nodes() -> None:
    from decimal import Decimal

    [pool] = advise(one_pool(nodes=1250, teams=4).model(), [job("t1", 64)]).pools
    assert Decimal(pool.free_block_gpus) == 16 * 8


def test_advice_to_leave_volcano_says_what_its_volcano_jobs_would_have_to_become() -> None:
    fleet = one_pool("volcano", nodes=16, teams=2).model()
    [pool] = advise(fleet, [vcjob("t0", 4), job("t0", 2), job("t1", 2)]).pools
    assert pool.mechanism == "kueue+tas" and "Volcano Job(s) would have to become JobSets" in pool.reason
    assert "kueue.x-k8s.io/queue-name" in pool.reason


def test_advice_to_keep_volcano_for_volcano_jobs_names_its_topology_placement() -> None:
    [pool] = advise(one_pool("volcano", nodes=16, teams=2).model(), [vcjob("t0", 4)]).pools
    assert pool.mechanism == "volcano" and "networkTopology" in pool.reason and "would have to become" in pool.reason


GATES = {"version": "1.37", "featureGates": {"GenericWorkload": True, "WorkloadWithJob": True}}
NATIVE_ROWS = [
    Row(
        "one team on a small pool of a cluster that gangs Jobs itself: native, no second scheduler",
        one_pool(nodes=2).set("kubernetes", GATES),
        [job("t0", 2)],
        "native",
        "pools[0].system: native",
        "fragmentation",
    ),
    Row(
        "many teams with small jobs on such a cluster: Kueue admits, kube-scheduler places the gang whole",
        one_pool(nodes=64, teams=3).set("kubernetes", GATES),
        [job("t0", 2)],
        "kueue+native",
        "pools[0].placement: native",
        "contention",
    ),
    Row(
        "many teams on a large pool of such a cluster: Kueue's topology-aware admission still",
        one_pool(nodes=1250, teams=4).set("kubernetes", GATES),
        [],
        "kueue+tas",
        TAS_LEVELS,
        "contention",
    ),
    Row(
        "a native Kueue pool keeps its placement",
        one_pool(nodes=64, teams=3, placement="native").set("kubernetes", GATES),
        [],
        "kueue+native",
        "none",
        "contention",
    ),
    Row(
        "the same small pool with the gates off (the 1.37 default): coscheduling",
        one_pool(nodes=2).set("kubernetes", {"version": "1.37"}),
        [job("t0", 2)],
        "coscheduling",
        "pools[0].system: coscheduling",
        "fragmentation",
    ),
    Row(
        "gates on at 1.35 do not gang Jobs: coscheduling",
        one_pool(nodes=2).set("kubernetes", {"version": "1.35", "featureGates": {"GenericWorkload": True}}),
        [job("t0", 2)],
        "coscheduling",
        "pools[0].system: coscheduling",
        "fragmentation",
    ),
]


@pytest.mark.parametrize("row", NATIVE_ROWS, ids=[r.id for r in NATIVE_ROWS])
def test_kubernetes_own_gang_scheduling_is_weighed_only_where_the_cluster_runs_it(row: Row) -> None:
    test_each_fleet_gets_the_mechanism_of_the_premise_table(row)


def test_native_advice_weighs_the_fixed_timeout_the_missing_topology_and_no_second_scheduler() -> None:
    [pool] = advise(NATIVE_ROWS[0].fleet.model(), NATIVE_ROWS[0].jobs).pools
    assert "no second scheduler" in pool.reason and "5 minutes at Permit (fixed" in pool.reason
    assert "TopologyAwareWorkloadScheduling is alpha and off" in pool.reason and "spec.scheduling" in pool.reason
    assert "no second scheduler" in pool.control_plane and "already running" in pool.control_plane
    with_topology = one_pool(nodes=2).set(
        "kubernetes",
        {"version": "1.37", "featureGates": {**GATES["featureGates"], "TopologyAwareWorkloadScheduling": True}},
    )
    assert "topology-aware placement is on" in advise(with_topology.model(), []).pools[0].reason


def test_native_advice_on_136_says_a_job_is_a_gang_by_its_shape() -> None:
    fleet = one_pool(nodes=2).set("kubernetes", {"version": "1.36", "featureGates": GATES["featureGates"]}).model()
    assert "Indexed with completions = parallelism" in advise(fleet, []).pools[0].reason


LARGE = 128  # nodes: a 512-GPU job exceeds the 16-node free block, so the pool gets kueue+tas and its levels


@pytest.mark.parametrize(
    "labels, levels, named",
    [
        ({"gpufleet.dev/pool": "gpu"}, ["kubernetes.io/hostname"], "label each node with its block and rack"),
        (
            {"cloud.google.com/gke-nodepool": "a3"},
            [
                "cloud.google.com/gce-topology-block",
                "cloud.google.com/gce-topology-subblock",
                "cloud.google.com/gce-topology-host",
                "kubernetes.io/hostname",
            ],
            "Google Kubernetes Engine's topology labels",
        ),
        (
            {"eks.amazonaws.com/nodegroup": "p5"},
            [
                "topology.k8s.aws/network-node-layer-1",
                "topology.k8s.aws/network-node-layer-2",
                "topology.k8s.aws/network-node-layer-3",
                "kubernetes.io/hostname",
            ],
            "Amazon EKS's topology labels",
        ),
        (
            {"gpufleet.dev/pool": "gpu", "topology.kubernetes.io/zone": "z1"},
            ["topology.kubernetes.io/zone", "kubernetes.io/hostname"],
            "topology.kubernetes.io/zone is in the pool's nodeLabels",
        ),
    ],
    ids=["no provider", "GKE", "EKS", "a zone the model names"],
)
def test_proposed_topology_levels_are_labels_the_nodes_carry_and_the_reason_says_who_sets_them(labels, levels, named):
    fleet = one_pool(nodes=LARGE, teams=4, nodeLabels=labels).model()
    pool = advise(fleet, [job("t0", 64)]).pools[0]
    assert pool.mechanism == "kueue+tas"
    assert pool.change == f"pools[0].topologyLevels: [{', '.join(levels)}]"
    assert "topology.gpufleet.dev" not in pool.change
    assert named in pool.reason and "kubernetes.io/hostname is set by the kubelet on every node" in pool.reason
