"""The apps controllers' reader: Deployment, ReplicaSet, StatefulSet, DaemonSet (kubernetes v1.37.2)."""

from __future__ import annotations

import pytest

from tests.workloads.contract.builders import apps, contract, steps

QUEUE = {"kueue.x-k8s.io/queue-name": "team-a"}


@pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet", "StatefulSet"])
def test_replicas_serve_and_a_lost_pod_is_replaced_alone(kind):
    found = contract(apps(kind, replicas=1))
    assert [p.role for p in found.pod_sets] == ["serving"]
    assert steps(found) == [("kubelet", "inPlace", None), ("podController", "pod", None)]
    assert not found.terminal.survivors_stop and found.success.criterion == "none: long-running"


def test_replicas_default_to_one():
    assert contract(apps("Deployment")).pod_sets[0].count == 1


def test_pods_naming_a_pod_group_are_ranks():
    found = contract(
        apps("StatefulSet", {"scheduling.x-k8s.io/pod-group": "pg"}, replicas=4, podManagementPolicy="Parallel")
    )
    assert [(p.role, p.count) for p in found.pod_sets] == [("rank", 4)]
    assert found.groups[0].backend == "coscheduling"


@pytest.mark.parametrize(
    "spec, at_start",
    [
        # OrderedReady (the default): ordinal i+1 waits for ordinal i to be Ready
        ({"replicas": 4}, 1),
        ({"replicas": 4, "podManagementPolicy": "OrderedReady"}, 1),
        ({"replicas": 4, "podManagementPolicy": "Parallel"}, 4),
    ],
)
def test_a_stateful_set_under_ordered_ready_starts_with_ordinal_zero(spec, at_start):
    found = contract(apps("StatefulSet", {"scheduling.x-k8s.io/pod-group": "pg"}, **spec))
    assert found.ranks_at_start == at_start and found.rank_count == 4


@pytest.mark.parametrize("kind, unit", [("StatefulSet", "whole"), ("Deployment", "perPod")])
def test_kueue_admits_a_stateful_set_whole_and_a_deployments_pods_one_by_one(kind, unit):
    obj = apps(kind, replicas=3, podManagementPolicy="Parallel")
    obj["metadata"]["labels"] = QUEUE
    found = contract(obj).admission
    assert (found.unit, found.by) == (unit, "kueue")
