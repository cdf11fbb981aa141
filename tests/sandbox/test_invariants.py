"""The fault tier's invariants over hand-built objects: each holds on a healthy cluster and is broken by one change."""

from __future__ import annotations

import pytest

from gpufleet.kubetypes.vocab import JOB_NAME_LABEL, VOLCANO_JOB_LABEL
from gpufleet.sandbox import invariants as inv


def cluster_queue(used: str, reserved: str = "0", nominal: str = "16", borrowing: str | None = "8") -> dict:
    resource = {"name": "nvidia.com/gpu", "nominalQuota": nominal}
    if borrowing is not None:
        resource["borrowingLimit"] = borrowing
    return {
        "metadata": {"name": "alpha"},
        "spec": {
            "resourceGroups": [
                {"coveredResources": ["nvidia.com/gpu"], "flavors": [{"name": "l4", "resources": [resource]}]}
            ]
        },
        "status": {
            "flavorsUsage": [{"name": "l4", "resources": [{"name": "nvidia.com/gpu", "total": used}]}],
            "flavorsReservation": [{"name": "l4", "resources": [{"name": "nvidia.com/gpu", "total": reserved}]}],
        },
    }


def pod(
    job: str, node: str | None = "n1", phase: str = "Running", volcano: bool = False, deleting: bool = False
) -> dict:
    label = VOLCANO_JOB_LABEL if volcano else JOB_NAME_LABEL
    meta = {"name": f"{job}-x", "namespace": "ns", "labels": {label: job}}
    if deleting:
        meta["deletionTimestamp"] = "2026-12-02T00:00:00Z"
    return {"metadata": meta, "spec": {"nodeName": node} if node else {}, "status": {"phase": phase}}


@pytest.mark.parametrize(
    "used, reserved, borrowing, broken",
    [("24", "24", "8", False), ("25", "0", "8", True), ("0", "25", "8", True), ("100", "100", None, False)],
    ids=["at-the-limit", "usage-above", "reservation-above", "no-borrowing-limit-is-the-cohorts-to-bound"],
)
def test_a_cluster_queue_over_nominal_plus_borrowing_limit_is_a_quota_violation(used, reserved, borrowing, broken):
    found = inv.quota([cluster_queue(used, reserved, borrowing=borrowing)])
    assert bool(found) is broken
    assert all(v.invariant == "quota" and v.subject == "alpha" for v in found)


def test_more_live_pods_than_ranks_is_a_duplicate_but_finished_and_deleting_pods_do_not_count():
    ranks = {("ns", "a"): 2}
    healthy = [pod("a"), pod("a"), pod("a", phase="Succeeded"), pod("a", deleting=True), pod("other")]
    assert inv.duplicates(healthy, ranks) == []
    assert [v.subject for v in inv.duplicates([*healthy, pod("a", node=None)], ranks)] == ["ns/a"]


def test_a_gang_bound_in_part_is_a_violation_only_once_it_stays_so_past_the_budget():
    gangs = inv.PartialGangs(budget=30)
    minimums = {("ns", "g"): 3}
    partial = [pod("g", volcano=True), pod("g", node=None, phase="Pending", volcano=True)]
    assert gangs.check(0, minimums, partial) == []
    assert gangs.check(29, minimums, partial) == []
    assert [v.invariant for v in gangs.check(31, minimums, partial)] == ["partialGang"]
    whole = [pod("g", volcano=True) for _ in range(3)]
    assert gangs.check(32, minimums, whole) == [] and gangs.since == {}
    assert gangs.check(100, minimums, partial) == []  # partial again: the clock starts again


def test_a_gang_with_nothing_bound_is_waiting_not_partial():
    gangs = inv.PartialGangs(budget=0)
    assert gangs.check(100, {("ns", "g"): 2}, [pod("g", node=None, phase="Pending", volcano=True)]) == []


@pytest.mark.parametrize(
    "job, done, said",
    [
        ({"apiVersion": "batch/v1", "status": {"conditions": [{"type": "Complete", "status": "True"}]}}, True, ""),
        (
            {
                "apiVersion": "batch/v1",
                "status": {"conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}]},
            },
            False,
            "Failed",
        ),
        ({"apiVersion": "batch/v1", "status": {}}, False, ""),
        ({"apiVersion": "batch.volcano.sh/v1alpha1", "status": {"state": {"phase": "Completed"}}}, True, ""),
        (
            {
                "apiVersion": "batch.volcano.sh/v1alpha1",
                "status": {"state": {"phase": "Aborted", "reason": "PodFailed"}},
            },
            False,
            "Aborted",
        ),
    ],
    ids=["complete", "failed-with-reason", "silent", "volcano-completed", "volcano-aborted"],
)
def test_a_job_is_finished_or_says_why_or_is_lost(job, done, said):
    job["metadata"] = {"name": "j", "namespace": "ns"}
    assert inv.finished(job) is done
    assert inv.reason(job).startswith(said)
    assert bool(inv.unfinished([job])) is (not done and not said)
