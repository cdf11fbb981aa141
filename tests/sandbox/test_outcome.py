"""The classifier of ``gpufleet try``: hand-built snapshots of what the engines left, and the outcome each is."""

from __future__ import annotations

import pytest

from gpufleet.sandbox.outcome import (
    Observed,
    after_failure,
    classify,
    fingerprint,
    rank_order,
    reasons,
    refused_by,
)


def pod(
    name: str,
    phase: str = "Running",
    node: str | None = "n-0",
    gpus: int = 2,
    gates: tuple[str, ...] = (),
    uid: str | None = None,
    unscheduled: str | None = None,
    deleting: bool = False,
) -> dict:
    spec: dict = {"containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": str(gpus)}}}]}
    if node:
        spec["nodeName"] = node
    if gates:
        spec["schedulingGates"] = [{"name": g} for g in gates]
    status: dict = {"phase": phase}
    if unscheduled:
        status["conditions"] = [
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": unscheduled}
        ]
    meta: dict = {"name": name, "uid": uid or f"uid-{name}"}
    if deleting:
        meta["deletionTimestamp"] = "2026-12-02T07:00:00Z"
    return {"metadata": meta, "spec": spec, "status": status}


def pending(name: str, **kw) -> dict:
    return pod(name, phase="Pending", node=None, **kw)


WORKLOAD_OVER_QUOTA = {
    "metadata": {"name": "job-big-1", "uid": "w1"},
    "status": {
        "conditions": [
            {
                "type": "QuotaReserved",
                "status": "False",
                "reason": "Pending",
                "message": "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor l4",
            }
        ]
    },
}
VOLCANO_GROUP = {
    "metadata": {"name": "gang-uid", "uid": "g1"},
    "status": {
        "phase": "Inqueue",
        "conditions": [
            {
                "type": "Unschedulable",
                "status": "True",
                "reason": "NotEnoughResources",
                "message": "2/2 tasks in gang unschedulable: pod group is not ready, 2 Pending, 3 minAvailable",
            }
        ],
    },
}
SUSPENDED_JOB = {"kind": "Job", "metadata": {"name": "train", "uid": "j1"}, "spec": {"suspend": True}}


@pytest.mark.parametrize(
    "seen, expected, outcome",
    [
        (Observed(pods=(pod("a"), pod("b"), pod("c"))), 3, "ranWhole"),
        (Observed(pods=(pod("a"), pod("b"), pending("c"))), 3, "partlyBound"),
        (Observed(pods=(pod("a"), pod("b", phase="Pending"))), 2, "partlyBound"),
        (Observed(pods=(pending("a", gates=("kueue.x-k8s.io/admission",)),)), 1, "gated"),
        (Observed(owners=(SUSPENDED_JOB,)), 2, "gated"),
        (Observed(owners=(SUSPENDED_JOB,), workloads=(WORKLOAD_OVER_QUOTA,)), 2, "neverAdmitted"),
        (Observed(pods=(pending("a"), pending("b")), pod_groups=(VOLCANO_GROUP,)), 3, "neverAdmitted"),
        (Observed(), 2, "neverAdmitted"),
        (Observed(pods=(pod("a"), pod("b", phase="Failed"))), 2, "partlyBound"),
        (Observed(pods=(pod("a"), pod("b", deleting=True))), 2, "partlyBound"),
    ],
    ids=[
        "every rank running",
        "one rank pending",
        "bound but not yet running",
        "gated pods",
        "suspended, no workload",
        "suspended, workload over quota",
        "volcano gang short of minAvailable",
        "nothing at all",
        "a failed pod is no rank",
        "a terminating pod is no rank",
    ],
)
def test_a_snapshot_is_classified_as_the_engines_left_it(seen, expected, outcome):
    assert classify(seen, expected).outcome == outcome


def test_a_partly_bound_gang_reports_its_counts_and_the_gpus_it_holds():
    verdict = classify(Observed(pods=(pod("a", gpus=4), pod("b", phase="Pending", gpus=4), pending("c", gpus=4))), 3)
    assert (verdict.running, verdict.bound, verdict.pending, verdict.gpus_held) == (1, 2, 1, "8")


@pytest.mark.parametrize(
    "seen, words",
    [
        (Observed(workloads=(WORKLOAD_OVER_QUOTA,)), "insufficient quota for nvidia.com/gpu"),
        (Observed(pod_groups=(VOLCANO_GROUP,)), "2 Pending, 3 minAvailable"),
        (
            Observed(pods=(pending("a", unscheduled="0/6 nodes are available: 6 Insufficient nvidia.com/gpu."),)),
            "6 Insufficient nvidia.com/gpu",
        ),
        (Observed(pods=(pending("a", gates=("kueue.x-k8s.io/admission",)),)), "gated by kueue.x-k8s.io/admission"),
        (Observed(owners=(SUSPENDED_JOB,)), "Job train is suspended"),
        (
            Observed(
                events=(
                    {
                        "type": "Warning",
                        "reason": "FailedCreate",
                        "involvedObject": {"kind": "Job", "name": "t"},
                        "message": 'pods "t-0" is forbidden: no PriorityClass with name gang-x was found',
                    },
                )
            ),
            "no PriorityClass with name gang-x",
        ),
    ],
    ids=["kueue quota", "volcano gang", "scheduler", "gates", "suspension", "events"],
)
def test_the_reasons_quote_the_engine_that_holds_the_gang(seen, words):
    assert any(words in line for line in reasons(seen)), reasons(seen)


def test_a_podgroup_is_quoted_by_its_latest_unschedulable_condition_only():
    group = {
        "metadata": {"name": "g"},
        "status": {
            "phase": "Inqueue",
            "conditions": [
                {"type": "Unschedulable", "status": "True", "reason": "NotEnoughResources", "message": "0/0 tasks"},
                {"type": "Unschedulable", "status": "True", "reason": "NotEnoughResources", "message": "2/2 tasks"},
            ],
        },
    }
    assert reasons(Observed(pod_groups=(group,))) == ("PodGroup g (Inqueue): NotEnoughResources: 2/2 tasks",)


def test_the_same_reason_of_many_pods_is_said_once_with_its_count():
    seen = Observed(pods=tuple(pending(n, unscheduled="no nodes") for n in "abc"))
    assert reasons(seen) == ("pod unscheduled: Unschedulable: no nodes (x3)",)


BEFORE = frozenset({"uid-a", "uid-b", "uid-c"})


@pytest.mark.parametrize(
    "pods, final, outcome",
    [
        ((pod("a", uid="n-a"), pod("b", uid="n-b"), pod("c", uid="n-c")), False, "restartedWhole"),
        ((pod("a", phase="Failed"), pod("b"), pod("c"), pod("a2", uid="n-a")), True, "rankReplacedAlone"),
        ((pod("a", phase="Failed"), pod("b"), pod("c")), True, "rankNotReplaced"),
        ((pod("a", phase="Failed"), pod("b", phase="Failed"), pod("c", phase="Failed")), True, "stoppedWhole"),
        ((pod("a", phase="Failed"), pending("a2", uid="n-a"), pending("b2", uid="n-b")), True, "partlyBound"),
    ],
    ids=[
        "every rank new and running",
        "only the failed rank new",
        "nothing replaced",
        "nothing left alive",
        "restart stuck half way",
    ],
)
def test_after_a_failed_rank_the_gang_is_classified_by_which_pods_are_new(pods, final, outcome):
    assert after_failure(BEFORE, "uid-a", Observed(pods=pods), 3, final).outcome == outcome


def test_a_one_rank_gang_whose_rank_failed_and_was_not_replaced_stopped_whole():
    # gen:1:1 of the differential tier: a 1-pod Job with backoffLimit 0 fails as a whole
    assert (
        after_failure(frozenset({"uid-a"}), "uid-a", Observed(pods=(pod("a", phase="Failed"),)), 1, final=True).outcome
        == "stoppedWhole"
    )


def test_a_lone_replacement_is_only_decided_once_nothing_changes_any_more():
    pods = (pod("a", phase="Failed"), pod("b"), pod("c"), pod("a2", uid="n-a"))
    assert after_failure(BEFORE, "uid-a", Observed(pods=pods), 3, final=False) is None


def test_the_fingerprint_changes_when_a_pod_binds_and_not_when_nothing_does():
    before = Observed(pods=(pending("a"),))
    assert fingerprint(before) == fingerprint(Observed(pods=(pending("a"),)))
    assert fingerprint(before) != fingerprint(Observed(pods=(pod("a"),)))


def test_ranks_are_ordered_by_the_numbers_in_their_names():
    names = ["t-10-x", "t-2-y", "t-0-z", "job-worker-1", "job-launcher-0", "job-worker-0"]
    ordered = [p["metadata"]["name"] for p in rank_order(pod(n) for n in names)]
    assert ordered == ["job-launcher-0", "job-worker-0", "job-worker-1", "t-0-z", "t-2-y", "t-10-x"]


@pytest.mark.parametrize(
    "message, who",
    [
        (
            'admission webhook "validatejob.volcano.sh" denied the request: job minAvailable ...',
            "validatejob.volcano.sh",
        ),
        (
            'Internal error occurred: failed calling webhook "vjob.gpufleet.dev": connection refused',
            "vjob.gpufleet.dev",
        ),
        (
            "pods \"x\" is forbidden: ValidatingAdmissionPolicy 'gpufleet-dedicated' with binding 'b' denied request: no",
            "gpufleet-dedicated",
        ),
        ('Job.batch "x" is invalid: spec.template.spec.containers: Required value', "kube-apiserver"),
    ],
)
def test_who_refused_is_read_from_the_api_servers_message(message, who):
    assert refused_by(message) == who
