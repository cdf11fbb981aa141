"""Native gang pools and the cluster they need: the Kubernetes version and its workload-scheduling gates."""

from __future__ import annotations

import pytest

from gpufleet.yamlin.errors import ModelError
from tests.model.builders import FleetBuilder
from tests.model.expect import Case, clean, params, reported

GATES_ON = {"GenericWorkload": True, "WorkloadWithJob": True}


def cluster(b: FleetBuilder, version: str = "1.37", **gates: bool) -> FleetBuilder:
    return b.set("kubernetes", {"version": version, "featureGates": gates or dict(GATES_ON)})


def alone(b: FleetBuilder) -> FleetBuilder:
    """pools[2] 'b200' held by kube-scheduler's gang scheduling, owned by teams[2] 'solo', gates on."""
    return cluster(b.with_pool("b200", "native", nodes=4).with_team("solo", quota={"b200": {"nominal": 32}}))


def under_kueue(b: FleetBuilder) -> FleetBuilder:
    """The default Kueue pool h100 (pools[0]) with native placement, gates on."""
    return cluster(b.set("pools[0].placement", "native"))


CASES = [
    Case(
        "native-pool-gates-off",
        lambda f: alone(f).set("kubernetes.featureGates", {}),
        alone,
        "pools[2].system",
        "GenericWorkload and WorkloadWithJob are off",
    ),
    Case(
        "native-pool-job-gate-off",
        lambda f: alone(f).set("kubernetes.featureGates", {"GenericWorkload": True}),
        alone,
        "pools[2].system",
        "WorkloadWithJob is off",
    ),
    Case(
        "native-pool-on-1.35",
        lambda f: alone(f).set("kubernetes", {"version": "1.35", "featureGates": {"GenericWorkload": True}}),
        alone,
        "pools[2].system",
        "does not have for Jobs",
    ),
    Case(
        "native-placement-gates-off",
        lambda f: under_kueue(f).set("kubernetes.featureGates", {}),
        under_kueue,
        "pools[0].placement",
        "bind pod by pod",
    ),
    Case(
        "placement-on-volcano",
        lambda f: f.set("pools[1].placement", "native"),
        lambda f: f,
        "pools[1].placement",
        "how Kueue's admitted gangs are placed",
    ),
    Case(
        "gate-too-new",
        lambda f: cluster(f, "1.35", GenericWorkload=True, WorkloadWithJob=True),
        lambda f: cluster(f, "1.36", GenericWorkload=True, WorkloadWithJob=True),
        "kubernetes.featureGates.WorkloadWithJob",
        "has no WorkloadWithJob gate",
    ),
    Case(
        "gate-dependency-off",
        lambda f: cluster(f, WorkloadWithJob=True),
        cluster,
        "kubernetes.featureGates.WorkloadWithJob",
        "depends on GenericWorkload",
    ),
    Case(
        "unknown-gate",
        lambda f: cluster(f, GenericWorkload=True, WorkloadWithJob=True, GangScheduling=True),
        cluster,
        "kubernetes.featureGates.GangScheduling",
        "not a workload-scheduling gate",
    ),
    Case(
        "second-team",
        lambda f: alone(f).with_team("duo", quota={"b200": {"nominal": 0}}),
        alone,
        "teams[3].quota.b200",
        "already belongs to team 'solo'",
    ),
    Case(
        "owner-with-other-quota",
        lambda f: alone(f).set("teams[2].quota.h100", {"nominal": 0}),
        alone,
        "teams[2].quota.h100",
        "would never be used",
    ),
    Case(
        "no-node-labels",
        lambda f: alone(f).drop("pools[2].nodeLabels"),
        alone,
        "pools[2].nodeLabels",
        "could land on any node",
    ),
    Case(
        "topology-without-gate",
        lambda f: alone(f).set("pools[2].topologyLevels", ["topology.kubernetes.io/rack"]),
        lambda f: (
            alone(f)
            .set("kubernetes.featureGates.TopologyAwareWorkloadScheduling", True)
            .set("pools[2].topologyLevels", ["topology.kubernetes.io/rack"])
        ),
        "pools[2].topologyLevels",
        "need TopologyAwareWorkloadScheduling",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_native_pool_the_cluster_cannot_serve_is_reported_at_its_path_with_the_fix(case: Case) -> None:
    issues = reported(case)
    assert all(i.fix for i in issues)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_native_model_passes(case: Case) -> None:
    clean(case)


def test_the_cluster_defaults_to_the_sandbox_minor_with_every_workload_gate_off() -> None:
    k8s = FleetBuilder().model().kubernetes
    assert (k8s.version, k8s.minor, k8s.gates_on, k8s.native_jobs) == ("1.37", 37, frozenset(), False)


@pytest.mark.parametrize("version", ["1.37", "1.37.2"])
def test_a_gate_set_on_is_on_and_a_patch_version_keeps_the_minor(version: str) -> None:
    k8s = cluster(FleetBuilder(), version).model().kubernetes
    assert k8s.minor == 37 and k8s.native_jobs


@pytest.mark.parametrize("version", ["v1.37", "2.0", "1.x", "1.37.2.1"])
def test_a_version_that_is_not_1_x_is_refused_at_its_path(version: str) -> None:
    with pytest.raises(ModelError) as err:
        FleetBuilder().set("kubernetes.version", version).model()
    assert [(i.path, "write 1.<minor>" in i.message) for i in err.value.issues] == [("kubernetes.version", True)]


def test_the_cluster_spreads_pods_by_default_and_may_bin_pack() -> None:
    assert FleetBuilder().model().kubernetes.scoring_strategy == "LeastAllocated"
    packed = FleetBuilder().set("kubernetes.scoringStrategy", "MostAllocated").model()
    assert packed.kubernetes.scoring_strategy == "MostAllocated"


def test_a_scoring_strategy_the_scheduler_does_not_have_is_refused_at_its_path() -> None:
    with pytest.raises(ModelError) as err:
        FleetBuilder().set("kubernetes.scoringStrategy", "BinPack").model()
    assert [i.path for i in err.value.issues] == ["kubernetes.scoringStrategy"]
    assert "MostAllocated" in err.value.issues[0].message
