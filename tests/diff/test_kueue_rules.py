"""Kueue's ClusterQueue and Cohort webhook rules decide the upstream test cases as upstream does.

Cases translated from kubernetes-sigs/kueue v0.19.2 ``pkg/webhooks/clusterqueue_webhook_test.go``
(``TestValidateClusterQueue``: the quota and preemption cases; ``TestValidateClusterQueueUpdate``)
and ``pkg/webhooks/cohort_webhook_test.go``; each case links its source line. Cases about
fields gpufleet never renders (admission checks, resource names, namespace selectors)
are not translated.
"""

from __future__ import annotations

import pytest

from gpufleet.diff.kueue_rules import cluster_queue_update, cohort_update, priority_class_update

CQ_TEST = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/clusterqueue_webhook_test.go"
COHORT_TEST = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/cohort_webhook_test.go"


def cq(*resource, cohort=None, preemption=None, concurrent=None):
    """``MakeClusterQueue("cluster-queue").ResourceGroup(MakeFlavorQuotas("x86").Resource(...))``."""
    spec: dict = {}
    if resource:
        name, nominal, *limits = resource
        res = {"name": name, "nominalQuota": nominal}
        for key, value in zip(("borrowingLimit", "lendingLimit"), limits):
            if value != "":
                res[key] = value
        spec["resourceGroups"] = [{"coveredResources": [name], "flavors": [{"name": "x86", "resources": [res]}]}]
    if cohort:
        spec["cohortName"] = cohort
    if preemption:
        spec["preemption"] = preemption
    if concurrent:
        spec["concurrentAdmissionPolicy"] = concurrent
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "cluster-queue"},
        "spec": spec,
    }


CREATE_CASES = [
    ("L88 in cohort", cq(cohort="prod"), None),
    ("L104 flavor quota with negative value", cq("cpu", "-1"), "nominalQuota: Invalid value: -1"),
    ("L114 flavor quota with zero value", cq("cpu", "0"), None),
    ("L121 flavor quota with borrowingLimit 0", cq("cpu", "1", "0", cohort="cohort"), None),
    (
        "L129 flavor quota with negative borrowingLimit",
        cq("cpu", "1", "-1", cohort="cohort"),
        "borrowingLimit: Invalid value: -1",
    ),
    ("L140 flavor quota with lendingLimit 0", cq("cpu", "1", "", "0", cohort="cohort"), None),
    (
        "L148 flavor quota with negative lendingLimit",
        cq("cpu", "1", "", "-1", cohort="cohort"),
        "lendingLimit: Invalid value: -1",
    ),
    (
        "L159 flavor quota with lendingLimit and empty cohort",
        cq("cpu", "1", "", "1"),
        "must be nil when cohort is empty",
    ),
    (
        "L169 flavor quota with lendingLimit greater than nominalQuota",
        cq("cpu", "1", "", "2", cohort="cohort"),
        "must be less than or equal to the nominalQuota",
    ),
    (
        "L296 valid preemption with borrowWithinCohort",
        cq(
            preemption={
                "reclaimWithinCohort": "LowerPriority",
                "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 10},
            }
        ),
        None,
    ),
    ("L313 nil borrowWithinCohort from an older Kueue", cq(preemption={"reclaimWithinCohort": "Never"}), None),
]


@pytest.mark.parametrize(("case", "queue", "message"), CREATE_CASES, ids=[c[0] for c in CREATE_CASES])
def test_cluster_queue_rules_decide_the_upstream_case_like_upstream(case, queue, message):
    errors = cluster_queue_update(queue, queue)  # ValidateClusterQueueUpdate re-runs validateClusterQueueSpec
    link = f"{CQ_TEST}#{case.split()[0]}"
    if message is None:
        assert errors == [], link
    else:
        assert len(errors) == 1 and message in errors[0], f"{link}: {errors}"


UPDATE_CASES = [
    (
        "L524 queueingStrategy can be updated",
        {"queueingStrategy": "StrictFIFO"},
        {"queueingStrategy": "BestEffortFIFO"},
        None,
    ),
    (
        "L530 same queueingStrategy",
        {"queueingStrategy": "BestEffortFIFO"},
        {"queueingStrategy": "BestEffortFIFO"},
        None,
    ),
    (
        "L638 ConcurrentAdmissionPolicy cannot be added",
        {},
        {"concurrentAdmissionPolicy": {"migration": {"mode": "TryPreferredFlavors"}}},
        "spec.concurrentAdmissionPolicy: Invalid value: field is immutable",
    ),
    (
        "L656 ConcurrentAdmissionPolicy cannot be removed",
        {"concurrentAdmissionPolicy": {"migration": {"mode": "TryPreferredFlavors"}}},
        {},
        "spec.concurrentAdmissionPolicy: Invalid value: field is immutable",
    ),
]


@pytest.mark.parametrize(("case", "old", "new", "message"), UPDATE_CASES, ids=[c[0] for c in UPDATE_CASES])
def test_cluster_queue_update_rules_decide_the_upstream_case_like_upstream(case, old, new, message):
    base = cq("cpu", "1")
    errors = cluster_queue_update({**base, "spec": {**base["spec"], **old}}, {**base, "spec": {**base["spec"], **new}})
    link = f"{CQ_TEST}#{case.split()[0]}"
    assert (errors == []) if message is None else (errors == [message]), f"{link}: {errors}"


def test_cohort_rules_decide_the_upstream_case_like_upstream():
    """``COHORT_TEST#L40`` flavor quota with lendingLimit and empty parent."""
    cohort = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Cohort",
        "metadata": {"name": "c"},
        "spec": {"resourceGroups": cq("cpu", "1", "", "1")["spec"]["resourceGroups"]},
    }
    errors = cohort_update(cohort, cohort)
    assert len(errors) == 1 and "must be nil when parent is empty" in errors[0], f"{COHORT_TEST}#L40"


def test_a_cohort_may_lend_more_than_its_nominal_quota():
    cohort = {"spec": {"parentName": "org", "resourceGroups": cq("cpu", "1", "", "2")["spec"]["resourceGroups"]}}
    assert cohort_update(cohort, cohort) == []


@pytest.mark.parametrize(
    ("old", "new", "rejected"),
    [
        ({"value": 1000}, {"value": 2000}, True),
        (
            {"value": 1000, "preemptionPolicy": "Never"},
            {"value": 1000, "preemptionPolicy": "PreemptLowerPriority"},
            True,
        ),
        ({"value": 1000, "description": "a"}, {"value": 1000, "description": "b"}, False),
    ],
)
def test_a_priority_class_keeps_its_value_and_preemption_policy(old, new, rejected):
    assert bool(priority_class_update(old, new)) is rejected
