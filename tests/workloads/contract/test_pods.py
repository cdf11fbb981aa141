"""The bare Pod reader: the kubelet, and Kueue's pod groups (kueue v0.19.2 pkg/controller/jobs/pod)."""

from __future__ import annotations

import pytest

from tests.workloads.contract.builders import contract, pod, pod_group, steps

GROUP = {"kueue.x-k8s.io/pod-group-name": "g", "kueue.x-k8s.io/queue-name": "team-a"}
TOTAL = {"kueue.x-k8s.io/pod-group-total-count": "3"}


def test_a_kueue_pod_group_counts_its_pods_in_the_input_and_takes_the_total_count_as_minimum():
    members = [pod(f"p{i}", GROUP, TOTAL) for i in range(3)]
    found = contract(members[0], *members[1:])
    group = found.groups[0]
    assert (found.pod_sets[0].count, group.backend, group.creator, group.minimum, group.queue) == (
        3,
        "kueue",
        "kueue",
        3,
        "team-a",
    )
    assert str(group.minimum_from) == "metadata.annotations[kueue.x-k8s.io/pod-group-total-count]"
    assert (found.admission.unit, found.admission.by) == ("whole", "kueue")


@pytest.mark.parametrize(
    "annotations, restart, expected",
    [
        # Kueue never replaces a pod; the kubelet restarts in place under the default Always
        (TOTAL, None, [("kubelet", "inPlace", None), ("podController", "notReplaced", None)]),
        (TOTAL, "Never", [("podController", "notReplaced", None)]),
        # retriable-in-group false: a failed pod ends the group (isUnretriableGroup)
        ({**TOTAL, "kueue.x-k8s.io/retriable-in-group": "false"}, "Never", [("operator", "stop", 0)]),
    ],
)
def test_a_failed_pod_of_a_kueue_group(annotations, restart, expected):
    found = contract(pod("p", GROUP, annotations, **({"restartPolicy": restart} if restart else {})))
    assert steps(found) == expected


def test_fast_admission_is_noted():
    found = contract(pod("p", GROUP, {**TOTAL, "kueue.x-k8s.io/pod-group-fast-admission": "true"}))
    assert any("fast-admission" in n for n in found.notes)


@pytest.mark.parametrize(
    "labels, annotations, group_api, backend",
    [
        ({"scheduling.x-k8s.io/pod-group": "pg"}, {}, "scheduling.x-k8s.io", "coscheduling"),
        ({}, {"scheduling.k8s.io/group-name": "pg"}, "scheduling.volcano.sh", "volcano"),
    ],
)
def test_a_pod_naming_a_pod_group_of_the_input_takes_its_min_member(labels, annotations, group_api, backend):
    found = contract(pod("p", labels, annotations), pod_group(group_api, 4))
    assert (found.groups[0].backend, found.groups[0].minimum) == (backend, 4)


def test_a_pod_group_missing_from_the_input_has_no_minimum_and_says_so():
    found = contract(pod("p", {"scheduling.x-k8s.io/pod-group": "pg"}))
    assert found.groups[0].minimum is None and "not in this input" in (found.groups[0].minimum_from.note or "")


def test_a_bare_pod_without_group_is_admitted_pod_by_pod():
    found = contract(pod("p"))
    assert (found.admission.unit, found.groups, found.is_gang) == ("perPod", (), False)
