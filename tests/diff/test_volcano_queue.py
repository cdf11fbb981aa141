"""The Volcano queue webhook emulation decides each upstream test case as upstream does.

Cases are translated from volcano-sh/volcano v1.15.1
``pkg/webhooks/admission/queues/validate/validate_queue_test.go`` (``TestAdmitQueues``
and ``TestAdmitHierarchicalQueues``; the latter runs with
``EnableQueueAllocatedPodsCheck = true``); each case links its source line.
"""

from __future__ import annotations

import pytest

from gpufleet.diff.volcano_queue import admit

SRC = "https://github.com/volcano-sh/volcano/blob/v1.15.1/pkg/webhooks/admission/queues/validate/validate_queue_test.go"


def q(name, parent="root", capability=None, deserved=None, guarantee=None, pods=None):
    spec = {"weight": 1, "parent": parent}
    if capability:
        spec["capability"] = capability
    if deserved:
        spec["deserved"] = deserved
    if guarantee:
        spec["guarantee"] = {"resource": guarantee}
    out = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name}, "spec": spec}
    if pods is not None:
        out["status"] = {"allocated": {"pods": str(pods)}}
    return out


CPU_MEM = lambda cpu, mem: {"cpu": cpu, "memory": mem}  # noqa: E731

# The informer's queues of TestAdmitHierarchicalQueues (L1164-L1675).
HIERARCHY = {
    x["metadata"]["name"]: x
    for x in [
        q("queue-with-jobs", pods=1),
        q("queue-without-jobs", pods=0),
        q("child-queue", parent="queue-with-child-queues"),
        q("queue-with-child-queues"),
        q("parent-queue-has-child-with-jobs", pods=1),
        q("child-queue-a-with-jobs", parent="parent-queue-has-child-with-jobs", pods=1),
        q("queue-without-child-queues"),
        q("parent-queue-resource-test", capability=CPU_MEM("10", "20Gi"), guarantee=CPU_MEM("8", "16Gi")),
        q(
            "sibling-queue-resource-test",
            parent="parent-queue-resource-test",
            capability=CPU_MEM("3", "6Gi"),
            guarantee=CPU_MEM("2", "4Gi"),
        ),
        q("parent-queue-small-capability", capability=CPU_MEM("5", "10Gi")),
        q("parent-queue-to-update", capability=CPU_MEM("20", "40Gi"), guarantee=CPU_MEM("15", "30Gi")),
        q(
            "child-queue-a",
            parent="parent-queue-to-update",
            capability=CPU_MEM("12", "24Gi"),
            guarantee=CPU_MEM("8", "16Gi"),
        ),
        q(
            "child-queue-b-for-update",
            parent="parent-queue-to-update",
            capability=CPU_MEM("8", "16Gi"),
            guarantee=CPU_MEM("5", "10Gi"),
        ),
        q("parent-queue-empty-parent", parent="", capability=CPU_MEM("100", "100Gi")),
        q("child-of-empty-parent", parent="parent-queue-empty-parent", capability=CPU_MEM("50", "50Gi")),
    ]
}
PARENT_TO_UPDATE = HIERARCHY["parent-queue-to-update"]
EMPTY_PARENT = HIERARCHY["parent-queue-empty-parent"]

CASES = [
    # TestAdmitQueues: no other queues in the informer
    (
        "L720 default queue can not be deleted",
        "DELETE",
        q("default"),
        None,
        {"default": q("default")},
        "`default` queue can not be deleted",
    ),
    ("L783 create queue without resource", "CREATE", q("resource-not-set", parent=""), None, {}, None),
    (
        "L812 create queue with deserved resource",
        "CREATE",
        q("only-deserved-set", parent="", deserved=CPU_MEM("1", "1Gi")),
        None,
        {},
        None,
    ),
    (
        "L841 guarantee but no deserved is rejected",
        "CREATE",
        q("only-guarantee-set", parent="", guarantee={"cpu": "1"}),
        None,
        {},
        "deserved[cpu] must be >= guarantee[cpu]=1",
    ),
    (
        "L873 capability less than deserved",
        "CREATE",
        q("capability-less-deserved", parent="", capability=CPU_MEM("1", "1Gi"), deserved=CPU_MEM("2", "1Gi")),
        None,
        {},
        "deserved[cpu]=2 must be <= capability[cpu]=1",
    ),
    (
        "L905 deserved less than guarantee",
        "CREATE",
        q("deserved-less-guarantee", parent="", deserved=CPU_MEM("2", "1Gi"), guarantee=CPU_MEM("2", "3Gi")),
        None,
        {},
        "must be >= guarantee[memory]",
    ),
    # TestAdmitHierarchicalQueues
    (
        "L1679 queue cannot use itself as parent",
        "CREATE",
        q("self-referencing-queue", parent="self-referencing-queue"),
        None,
        HIERARCHY,
        "queue self-referencing-queue cannot use itself as parent",
    ),
    (
        "L1711 parent queue has jobs",
        "CREATE",
        q("parent-queue-with-jobs", parent="queue-with-jobs"),
        None,
        HIERARCHY,
        "queue queue-with-jobs cannot be the parent queue of queue parent-queue-with-jobs because it has allocated Pods: 1",
    ),
    (
        "L1743 parent queue has no jobs",
        "CREATE",
        q("parent-queue-without-jobs", parent="queue-without-jobs"),
        None,
        HIERARCHY,
        None,
    ),
    (
        "L1772 parent queue has a child with jobs",
        "CREATE",
        q("child-queue-b", parent="parent-queue-has-child-with-jobs"),
        None,
        HIERARCHY,
        None,
    ),
    (
        "L1801 delete queue with child queue",
        "DELETE",
        q("queue-with-child-queues"),
        None,
        HIERARCHY,
        "queue queue-with-child-queues can not be deleted because it has 1 child queues: child-queue",
    ),
    (
        "L1833 delete queue with allocated pods",
        "DELETE",
        q("queue-with-jobs"),
        None,
        HIERARCHY,
        "queue queue-with-jobs cannot be deleted because it has allocated Pods: 1",
    ),
    ("L1865 delete queue without child queue", "DELETE", q("queue-without-child-queues"), None, HIERARCHY, None),
    (
        "L1894 child capability exceeds parent capability",
        "CREATE",
        q("child-capability-exceeds-parent", parent="parent-queue-resource-test", capability=CPU_MEM("20", "40Gi")),
        None,
        HIERARCHY,
        "queue child-capability-exceeds-parent capability[cpu]=20 exceeds its ancestor's capability=10",
    ),
    (
        "L1926 siblings' guarantee sum exceeds the parent's",
        "CREATE",
        q(
            "siblings-guarantee-exceeds",
            parent="parent-queue-resource-test",
            capability=CPU_MEM("7", "14Gi"),
            deserved=CPU_MEM("7", "14Gi"),
            guarantee=CPU_MEM("7", "14Gi"),
        ),
        None,
        HIERARCHY,
        "parent queue parent-queue-resource-test validation failed: sum of children's guarantee",
    ),
    (
        "L1958 parent capability below a child's on UPDATE",
        "UPDATE",
        q(
            "parent-queue-to-update",
            capability=CPU_MEM("10", "20Gi"),
            deserved=CPU_MEM("10", "20Gi"),
            guarantee=CPU_MEM("8", "16Gi"),
        ),
        PARENT_TO_UPDATE,
        HIERARCHY,
        "queue parent-queue-to-update capability[cpu]=10 is smaller than its descendants' max capability=12",
    ),
    (
        "L1993 children's guarantee sum exceeds the parent's on UPDATE",
        "UPDATE",
        q(
            "parent-queue-to-update",
            capability=CPU_MEM("20", "40Gi"),
            deserved=CPU_MEM("20", "40Gi"),
            guarantee=CPU_MEM("10", "20Gi"),
        ),
        PARENT_TO_UPDATE,
        HIERARCHY,
        "queue parent-queue-to-update validation failed: sum of children's guarantee",
    ),
    (
        "L2028 a queue with an empty parent still checks its children on UPDATE",
        "UPDATE",
        q("parent-queue-empty-parent", parent="", capability=CPU_MEM("30", "30Gi")),
        EMPTY_PARENT,
        HIERARCHY,
        "queue parent-queue-empty-parent capability[cpu]=30 is smaller than its descendants' max capability=50",
    ),
    (
        "L2063 negative capability",
        "CREATE",
        q("queue-negative-capability", capability={"cpu": "-10"}),
        None,
        HIERARCHY,
        "must be greater than or equal to 0",
    ),
    (
        "L2095 negative deserved",
        "CREATE",
        q("queue-negative-deserved", deserved={"cpu": "-5"}),
        None,
        HIERARCHY,
        "must be greater than or equal to 0",
    ),
    (
        "L2127 negative guarantee (both errors, as upstream)",
        "CREATE",
        q("queue-negative-guarantee", guarantee={"cpu": "-2"}),
        None,
        HIERARCHY,
        "greater than or equal to 0; deserved[cpu] must be >= guarantee[cpu]=-2",
    ),
]


@pytest.mark.parametrize(("case", "operation", "new", "old", "queues", "message"), CASES, ids=[c[0] for c in CASES])
def test_the_emulation_decides_the_upstream_case_like_upstream(case, operation, new, old, queues, message):
    """Each case: ``SRC#L<n>``."""
    name = new["metadata"]["name"]
    errors = admit(operation, name, None if operation == "DELETE" else new, old, queues, allocated_pods_check=True)
    if message is None:
        assert errors == [], f"{SRC}#{case.split()[0]}"
    else:
        assert errors and message in "; ".join(errors), f"{SRC}#{case.split()[0]}: {errors}"


def test_an_update_that_changes_no_quota_or_parent_is_not_checked_against_the_hierarchy():
    small = q("child", parent="p", deserved={"cpu": "8"})
    queues = {"p": q("p", deserved={"cpu": "4"}), "child": small}
    renamed = {**small, "spec": {**small["spec"], "weight": 3}}
    assert admit("UPDATE", "child", renamed, small, queues) == []


def test_a_scalar_resource_the_parent_does_not_name_counts_as_zero():
    queues = {"p": q("p", deserved={"cpu": "8"})}
    errors = admit("CREATE", "c", q("c", parent="p", deserved={"cpu": "1", "nvidia.com/gpu": "0"}), None, queues)
    assert errors and "sum of children's deserved" in errors[0]
