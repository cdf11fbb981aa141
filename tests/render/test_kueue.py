"""Kueue objects: ClusterQueue shape, quota scaling, limits, selectors, cohorts, flavors."""

from __future__ import annotations

import pytest

from gpufleet.render import kueue
from tests.render.builders import by_name, cohort, fleet, pool, quota, team


def _flavors(cq: dict) -> list[dict]:
    [group] = cq["spec"]["resourceGroups"]
    return group["flavors"]


def _resource(cq: dict, flavor: str, res: str) -> dict:
    return next(r for r in next(f for f in _flavors(cq) if f["name"] == flavor)["resources"] if r["name"] == res)


def test_a_team_quota_scales_every_resource_with_the_node_shape():
    f = fleet(teams=[team("a", {"h100": quota(16, 8, 4)})])
    cq = by_name(kueue.render_cluster_queues(f), "a")
    assert _resource(cq, "h100", "nvidia.com/gpu") == {
        "name": "nvidia.com/gpu",
        "nominalQuota": "16",
        "borrowingLimit": "8",
        "lendingLimit": "4",
    }
    assert _resource(cq, "h100", "cpu") == {
        "name": "cpu",
        "nominalQuota": "384",
        "borrowingLimit": "192",
        "lendingLimit": "96",
    }
    assert _resource(cq, "h100", "memory") == {
        "name": "memory",
        "nominalQuota": "3840Gi",
        "borrowingLimit": "1920Gi",
        "lendingLimit": "960Gi",
    }


def test_an_explicit_resource_override_replaces_the_scaled_amount():
    f = fleet(teams=[team("a", {"h100": quota(16, cpu={"nominal": 100})})])
    cq = by_name(kueue.render_cluster_queues(f), "a")
    assert _resource(cq, "h100", "cpu") == {"name": "cpu", "nominalQuota": "100"}
    assert _resource(cq, "h100", "memory")["nominalQuota"] == "3840Gi"


def test_a_fractional_share_of_a_node_is_written_in_milli_units():
    f = fleet(pools=[pool(cpu=190)], teams=[team("a", {"h100": quota(3)})])
    cq = by_name(kueue.render_cluster_queues(f), "a")
    assert _resource(cq, "h100", "cpu")["nominalQuota"] == "71250m"


def test_every_flavor_lists_every_covered_resource_in_the_same_order_with_zero_where_the_pool_lacks_it():
    pools = [
        pool("h100", **{"allocatable": {"nvidia.com/gpu": 8, "cpu": 192, "memory": "1920Gi", "rdma/ib": 8}}),
        pool("l4", nodes=4),
    ]
    f = fleet(pools=pools, teams=[team("a", {"h100": quota(8), "l4": quota(8)})])
    cq = by_name(kueue.render_cluster_queues(f), "a")
    [group] = cq["spec"]["resourceGroups"]
    assert group["coveredResources"] == ["cpu", "memory", "nvidia.com/gpu", "rdma/ib"]
    for flavor in group["flavors"]:
        assert [r["name"] for r in flavor["resources"]] == group["coveredResources"]
    assert _resource(cq, "l4", "rdma/ib") == {"name": "rdma/ib", "nominalQuota": "0"}


def test_flavors_follow_the_fleet_pool_order_not_the_team_quota_order():
    f = fleet(pools=[pool("a100"), pool("h100")], teams=[team("a", {"h100": quota(8), "a100": quota(8)})])
    assert [fl["name"] for fl in _flavors(by_name(kueue.render_cluster_queues(f), "a"))] == ["a100", "h100"]


def test_a_team_without_a_cohort_gets_no_cohort_name_and_no_limits():
    f = fleet(cohorts=[], teams=[team("solo", {"h100": quota(8)}, cohort=None)])
    cq = by_name(kueue.render_cluster_queues(f), "solo")
    assert "cohortName" not in cq["spec"]
    assert all(set(r) == {"name", "nominalQuota"} for fl in _flavors(cq) for r in fl["resources"])


def test_the_namespace_selector_matches_exactly_the_team_namespaces():
    f = fleet(teams=[team("a", {"h100": quota(8)}, namespaces=["a-exp", "a"])])
    cq = by_name(kueue.render_cluster_queues(f), "a")
    assert cq["spec"]["namespaceSelector"] == {
        "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["a", "a-exp"]}]
    }


def test_a_cluster_queue_sets_every_field_the_crd_would_default():
    cq = by_name(kueue.render_cluster_queues(fleet()), "research")
    spec = cq["spec"]
    assert spec["queueingStrategy"] == "BestEffortFIFO"
    assert spec["stopPolicy"] == "None"
    assert spec["flavorFungibility"] == {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"}
    assert spec["preemption"] == {
        "reclaimWithinCohort": "Any",
        "withinClusterQueue": "LowerPriority",
        "borrowWithinCohort": {"policy": "Never"},
    }
    assert spec["fairSharing"] == {"weight": "1"}


@pytest.mark.parametrize(
    "lifecycle, stop_policy, expected",
    [
        ("active", "None", "None"),
        ("active", "Hold", "Hold"),
        ("draining", "None", "HoldAndDrain"),
        ("retired", "Hold", "HoldAndDrain"),
    ],
)
def test_draining_and_retired_teams_hold_and_drain_their_queues(lifecycle, stop_policy, expected):
    f = fleet(teams=[team("a", {"h100": quota(8)}, lifecycle=lifecycle, stopPolicy=stop_policy)])
    assert by_name(kueue.render_cluster_queues(f), "a")["spec"]["stopPolicy"] == expected
    assert {lq["spec"]["stopPolicy"] for lq in kueue.render_local_queues(f)} == {expected}


def test_a_team_gets_one_local_queue_per_namespace_pointing_at_its_cluster_queue():
    f = fleet(teams=[team("a", {"h100": quota(8)}, namespaces=["a", "a-exp"], localQueue="training")])
    lqs = kueue.render_local_queues(f)
    assert [(lq["metadata"]["namespace"], lq["metadata"]["name"], lq["spec"]["clusterQueue"]) for lq in lqs] == [
        ("a", "training", "a"),
        ("a-exp", "training", "a"),
    ]


def test_teams_with_only_volcano_quota_get_no_kueue_queues():
    f = fleet(
        pools=[pool("h100"), pool("a100", system="volcano")],
        teams=[team("k", {"h100": quota(8)}), team("v", {"a100": quota(8)})],
    )
    assert [cq["metadata"]["name"] for cq in kueue.render_cluster_queues(f)] == ["k"]
    assert {lq["metadata"]["namespace"] for lq in kueue.render_local_queues(f)} == {"k"}


def test_cohorts_render_parents_first_with_their_own_quota_and_limits_only_under_a_parent():
    cohorts = [cohort("child", parent="org", quota={"h100": quota(8, 4)}), cohort("org", quota={"h100": quota(8)})]
    f = fleet(cohorts=cohorts, teams=[team("a", {"h100": quota(8)}, cohort="child")])
    rendered = kueue.render_cohorts(f)
    assert [c["metadata"]["name"] for c in rendered] == ["org", "child"]
    org, child = rendered
    assert "parentName" not in org["spec"]
    assert child["spec"]["parentName"] == "org"
    gpu = lambda c: next(
        r for r in c["spec"]["resourceGroups"][0]["flavors"][0]["resources"] if r["name"] == "nvidia.com/gpu"
    )
    assert gpu(child) == {"name": "nvidia.com/gpu", "nominalQuota": "8", "borrowingLimit": "4"}
    assert gpu(org) == {"name": "nvidia.com/gpu", "nominalQuota": "8"}


def test_a_cohort_without_kueue_quota_in_its_subtree_gets_no_kueue_cohort():
    f = fleet(
        pools=[pool("h100"), pool("a100", system="volcano")],
        cohorts=[cohort("ml"), cohort("vc")],
        teams=[team("k", {"h100": quota(8)}, cohort="ml"), team("v", {"a100": quota(8)}, cohort="vc")],
    )
    assert [c["metadata"]["name"] for c in kueue.render_cohorts(f)] == ["ml"]


def test_a_pool_with_topology_levels_gets_a_topology_and_its_flavor_names_it():
    f = fleet(
        pools=[
            pool(
                topologyLevels=["topology.gpufleet.dev/rack", "kubernetes.io/hostname"],
                taints=[{"key": "nvidia.com/gpu", "value": "present"}],
                tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            )
        ]
    )
    [topo] = kueue.render_topologies(f)
    assert topo["spec"]["levels"] == [
        {"nodeLabel": "topology.gpufleet.dev/rack"},
        {"nodeLabel": "kubernetes.io/hostname"},
    ]
    [flavor] = kueue.render_resource_flavors(f)
    assert flavor["spec"] == {
        "nodeLabels": {"gpufleet.dev/pool": "h100"},
        "nodeTaints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "topologyName": "h100",
    }


def test_a_pool_without_topology_levels_gets_no_topology():
    assert kueue.render_topologies(fleet()) == []
    assert "topologyName" not in kueue.render_resource_flavors(fleet())[0]["spec"]


def test_workload_priority_classes_mirror_the_priority_classes():
    f = fleet(
        priorityClasses=[{"name": "gang-high", "value": 1000, "description": "high"}, {"name": "low", "value": 1}]
    )
    assert [
        (w["metadata"]["name"], w["value"], w.get("description")) for w in kueue.render_workload_priority_classes(f)
    ] == [("gang-high", 1000, "high"), ("low", 1, None)]
