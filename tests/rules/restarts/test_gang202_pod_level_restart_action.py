"""GANG202: failures must restart the whole gang, not a pod, a task or one child Job."""

from __future__ import annotations

import pytest

from tests.rules import builders as b
from tests.rules.helpers import fixed, paths

CODE = "GANG202"
P = b.policy
TWO_TASKS = [b.task("m"), b.task("w", replicas=3)]


@pytest.mark.parametrize(
    "policy, tasks, flagged",
    [
        (P("PodFailed", "RestartPod"), TWO_TASKS, True),
        (P("PodEvicted", "RestartTask"), TWO_TASKS, True),
        (P("Unknown", "RestartPartition"), TWO_TASKS, True),
        (P("*", "RestartPod"), TWO_TASKS, True),
        ({"exitCode": 3, "action": "RestartPod"}, TWO_TASKS, True),
        (P("PodFailed", "RestartJob"), TWO_TASKS, False),
        (P("TaskCompleted", "RestartTask"), TWO_TASKS, False),
        (P("PodFailed", "RestartTask"), [b.task("w", replicas=8)], False),
        (P("PodFailed", "RestartPod"), [b.task("w", replicas=8)], True),
    ],
)
def test_partial_restart_actions_on_failures_are_flagged(policy, tasks, flagged):
    job = b.volcano_job(policies=[policy], tasks=tasks)
    assert paths(CODE, job) == (["spec.policies[0].action"] if flagged else [])


def test_task_level_policies_are_checked_too():
    job = b.volcano_job(tasks=[b.task("m"), b.task("w", replicas=3, policies=[P("PodFailed", "RestartPod")])])
    assert paths(CODE, job) == ["spec.tasks[1].policies[0].action"]


@pytest.mark.parametrize("replicas, flagged", [(1, False), (2, True)])
def test_a_jobset_restart_job_rule_is_partial_when_there_are_several_child_jobs(replicas, flagged):
    js = b.jobset(
        replicated_jobs=[b.replicated_job(replicas=replicas)],
        failure_policy={"maxRestarts": 3, "rules": [{"name": "r", "action": "RestartJob"}]},
    )
    assert paths(CODE, js) == (["spec.failurePolicy.rules[0].action"] if flagged else [])


def test_remediation_restarts_the_whole_gang():
    job = fixed(CODE, b.volcano_job(policies=[P("PodFailed", "RestartPod")], tasks=TWO_TASKS))
    assert job["spec"]["policies"] == [P("PodFailed", "RestartJob")]
    js = b.jobset(
        replicated_jobs=[b.replicated_job(replicas=2)],
        failure_policy={"rules": [{"name": "r", "action": "RestartJobAndIgnoreMaxRestarts"}]},
    )
    assert fixed(CODE, js)["spec"]["failurePolicy"]["rules"][0]["action"] == "RestartJobSetAndIgnoreMaxRestarts"
