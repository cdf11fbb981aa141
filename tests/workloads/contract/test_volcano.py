"""The Volcano Job and PodGroup reader against Volcano's job controller and webhook (volcano v1.14.1)."""

from __future__ import annotations

import pytest

from tests.workloads.contract.builders import contract, pod_group, steps, volcano_job


@pytest.mark.parametrize(
    "tasks, spec, minimum, minimum_from",
    [
        # written minAvailable is the PodGroup's minMember (createOrUpdatePodGroup)
        ([{"name": "w", "replicas": 4}], {"minAvailable": 2}, 2, "spec.minAvailable"),
        # unset: patchDefaultMinAvailable sums task minAvailable, else replicas
        (
            [{"name": "w", "replicas": 4}, {"name": "ps", "replicas": 2, "minAvailable": 1}],
            {},
            5,
            "volcano v1.14.1 pkg/webhooks/admission/jobs/mutate/mutate_job.go patchDefaultMinAvailable",
        ),
        # 0 is unset for the webhook too
        (
            [{"name": "w", "replicas": 3}],
            {"minAvailable": 0},
            3,
            "volcano v1.14.1 pkg/webhooks/admission/jobs/mutate/mutate_job.go patchDefaultMinAvailable",
        ),
    ],
)
def test_the_job_controllers_pod_group_minimum(tasks, spec, minimum, minimum_from):
    group = contract(volcano_job(*tasks, **spec)).groups[0]
    assert (group.backend, group.creator, group.minimum, str(group.minimum_from)) == (
        "volcano",
        "operator",
        minimum,
        minimum_from,
    )


def test_absent_replicas_is_zero_and_the_queue_defaults_to_default():
    found = contract(volcano_job({"name": "w"}))
    assert found.pod_sets[0].count == 0 and found.groups[0].queue == "default"


def test_a_dependent_task_is_created_after_the_tasks_it_names_run():
    found = contract(
        volcano_job({"name": "w", "replicas": 2}, {"name": "l", "replicas": 1, "dependsOn": {"name": ["w"]}})
    )
    launcher = found.pod_set("l")
    assert launcher is not None and not launcher.exists_at_start
    assert launcher.created_after[0].of == ("w",) and launcher.created_after[0].condition == "Running"
    assert found.ranks_at_start == 2


@pytest.mark.parametrize(
    "job_policies, task_policies, restart, expected",
    [
        # no policy maps PodFailed: the pod stays Failed, the others run on (applyPolicies)
        ([], [], "Never", [("operator", "notReplaced", None)]),
        # restartPolicy unset is the API default Always: the kubelet restarts in place first
        (
            [{"event": "PodFailed", "action": "RestartJob"}],
            [],
            None,
            [("kubelet", "inPlace", None), ("operator", "whole", 3)],
        ),
        ([{"event": "PodFailed", "action": "RestartJob"}], [], "Never", [("operator", "whole", 3)]),
        ([{"events": ["*"], "action": "AbortJob"}], [], "Never", [("operator", "stop", 0)]),
        ([{"event": "PodFailed", "action": "TerminateJob"}], [], "Never", [("operator", "stop", 0)]),
        # a task's own policy wins over the job's
        (
            [{"event": "PodFailed", "action": "RestartJob"}],
            [{"event": "PodFailed", "action": "RestartTask"}],
            "Never",
            [("operator", "task", 3)],
        ),
        ([], [{"event": "PodFailed", "action": "RestartPod"}], "Never", [("operator", "pod", 3)]),
        ([], [{"event": "PodFailed", "action": "RestartPartition"}], "Never", [("operator", "group", 3)]),
    ],
)
def test_policies_decide_the_scope_of_a_failed_rank(job_policies, task_policies, restart, expected):
    template = {"spec": {"containers": [{"name": "c"}], **({"restartPolicy": restart} if restart else {})}}
    found = contract(
        volcano_job(
            {"name": "w", "replicas": 2, "template": template, "policies": task_policies}, policies=job_policies
        )
    )
    assert steps(found) == expected


def test_max_retry_bounds_a_restart():
    found = contract(
        volcano_job({"name": "w", "replicas": 2}, policies=[{"event": "PodFailed", "action": "RestartJob"}], maxRetry=1)
    )
    assert steps(found)[-1] == ("operator", "whole", 1)


def test_min_success_is_the_success_criterion():
    found = contract(volcano_job({"name": "w", "replicas": 4}, minSuccess=2))
    assert (found.success.criterion, found.success.count, str(found.success.origin)) == (
        "minSuccess pods succeed",
        2,
        "spec.minSuccess",
    )


def test_admission_is_by_volcano_whole_or_partial():
    assert (contract(volcano_job({"name": "w", "replicas": 4})).admission.unit) == "whole"
    partial = contract(volcano_job({"name": "w", "replicas": 4}, minAvailable=2)).admission
    assert (partial.unit, partial.by, partial.minimum) == ("partial", "volcano", 2)


def test_a_volcano_pod_group_is_a_group_with_no_pod_sets_and_its_members_named():
    member = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "m", "namespace": "team-a", "annotations": {"scheduling.k8s.io/group-name": "pg"}},
        "spec": {"containers": []},
    }
    found = contract(pod_group("scheduling.volcano.sh", 2, queue="q"), member)
    group = found.groups[0]
    assert found.pod_sets == () and (group.minimum, str(group.minimum_from), group.queue) == (2, "spec.minMember", "q")
    assert group.members == ("Pod/m",)


@pytest.mark.parametrize(
    "policies, task, note",
    [
        # applyPolicies: an event no policy maps leaves the pod down
        ([{"event": "PodFailed", "action": "RestartJob"}], {}, "no policy maps PodEvicted"),
        ([{"exitCode": 3, "action": "RestartJob"}], {}, "exitCode policies act first"),
        # createOrUpdatePodGroup: a task's minAvailable becomes minTaskMember
        ([{"events": ["*"], "action": "RestartJob"}], {"minAvailable": 1}, "minTaskMember"),
    ],
)
def test_what_the_failure_path_leaves_out_is_noted(policies, task, note):
    found = contract(volcano_job({"name": "w", "replicas": 2, **task}, policies=policies))
    assert any(note in n for n in found.notes), found.notes
