"""GANG002: a gang minimum above the pod count is flagged."""

from __future__ import annotations

import pytest

from tests.rules import builders as b
from tests.rules.helpers import fixed, paths

CODE = "GANG002"


@pytest.mark.parametrize(
    "job, expected",
    [
        (b.volcano_job(tasks=[b.task(replicas=2), b.task("t2", replicas=2)], min_available=5), ["spec.minAvailable"]),
        (b.volcano_job(tasks=[b.task(replicas=2, min_available=3)]), ["spec.tasks[0].minAvailable"]),
        (b.volcano_job(tasks=[b.task(replicas=4)], min_available=4), []),
        (b.pytorch_job(workers=3, min_available=5), ["spec.runPolicy.schedulingPolicy.minAvailable"]),
        (b.pytorch_job(workers=3, min_available=4), []),
    ],
)
def test_a_job_whose_min_is_above_its_replicas_is_flagged(job, expected):
    assert paths(CODE, job) == expected


def test_a_pod_group_larger_than_its_pods_is_flagged_only_when_members_are_seen():
    group = b.pod_group("pg1", min_member=3, flavor="coscheduling")
    assert paths(CODE, group, objects=(b.deployment("pause", replicas=2, group="pg1"),)) == ["spec.minMember"]
    assert paths(CODE, group) == []


@pytest.mark.parametrize(
    "members, expected",
    [
        (1, []),
        (2, ["metadata.annotations[kueue.x-k8s.io/pod-group-total-count]"]),
        (4, []),
    ],
)
def test_a_kueue_pod_group_needs_two_members_in_the_run_before_a_missing_pod_is_assumed(members, expected):
    pods = [b.pod(f"p{i}", group="g", total=4, queue="q") for i in range(members)]
    assert paths(CODE, pods[0], objects=tuple(pods[1:])) == expected


def test_remediation_lowers_the_minimum_to_the_pod_count():
    out = fixed(CODE, b.pytorch_job(workers=3, min_available=9))
    assert out["spec"]["runPolicy"]["schedulingPolicy"]["minAvailable"] == 4


def _launcher_job(min_available, launcher_min=None):
    """2 workers and a launcher that dependsOn them (its pod is created once they run)."""
    launcher = {**b.task("launcher", replicas=1, min_available=launcher_min), "dependsOn": {"name": ["worker"]}}
    return b.volcano_job(tasks=[launcher, b.task("worker", replicas=2)], min_available=min_available)


@pytest.mark.parametrize(
    "job, expected",
    [
        (_launcher_job(3), ["spec.minAvailable"]),
        (_launcher_job(None), ["spec.minAvailable"]),
        (_launcher_job(0), ["spec.minAvailable"]),
        (_launcher_job(2), []),
        (_launcher_job(None, launcher_min=0), []),
    ],
)
def test_counting_a_dependent_launcher_in_the_minimum_deadlocks(job, expected):
    assert paths(CODE, job) == expected


def test_the_fix_for_a_deadlocked_launcher_job_is_the_workers_it_starts_with():
    out = fixed(CODE, _launcher_job(None))
    assert out["spec"]["minAvailable"] == 2 and paths(CODE, out) == []


def _mpi(policy: str | None) -> dict:
    spec = {
        "mpiReplicaSpecs": {
            "Launcher": {"replicas": 1, "template": {"spec": {"containers": [{"name": "l", "image": "x"}]}}},
            "Worker": {"replicas": 4, "template": {"spec": {"containers": [{"name": "w", "image": "x"}]}}},
        }
    }
    if policy:
        spec["launcherCreationPolicy"] = policy
    return {
        "apiVersion": "kubeflow.org/v2beta1",
        "kind": "MPIJob",
        "metadata": {"name": "mpi", "namespace": "research"},
        "spec": spec,
    }


@pytest.mark.parametrize(
    "gang_scheduling, policy, expected",
    [
        ("volcano", "WaitForWorkersReady", ["spec.launcherCreationPolicy"]),  # workers + 1, the launcher comes later
        ("volcano", "AtStartup", []),  # the launcher exists at first scheduling
        ("", "WaitForWorkersReady", []),  # no --gang-scheduling: no PodGroup, no minimum
    ],
)
def test_an_operator_derived_minimum_counting_pods_created_later_deadlocks(gang_scheduling, policy, expected):
    from dataclasses import replace

    from gpufleet.fleetctx.operators import OperatorProfile
    from gpufleet.rules.api import CheckContext
    from tests.rules.helpers import FLEET

    profile = OperatorProfile.from_dict({"mpiOperator": {"gangScheduler": gang_scheduling}})
    ctx = CheckContext(fleet=replace(FLEET, operators=profile))
    assert paths(CODE, _mpi(policy), ctx) == expected
