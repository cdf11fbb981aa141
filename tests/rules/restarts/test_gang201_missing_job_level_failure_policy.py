"""GANG201: every task of a Volcano Job must have a policy for PodFailed and PodEvicted."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from tests.rules import builders as b
from tests.rules.helpers import fixed, paths

CODE = "GANG201"
P = b.policy


@pytest.mark.parametrize(
    "job_policies, task_policies, flagged",
    [
        ([P("PodFailed", "RestartJob"), P("PodEvicted", "RestartJob")], None, False),
        ([P("*", "AbortJob")], None, False),
        ([{"events": ["PodFailed", "PodEvicted"], "action": "TerminateJob"}], None, False),
        ([P("PodEvicted", "RestartJob")], None, True),
        ([], None, True),
        ([], [P("*", "RestartJob")], False),
        ([P("PodFailed", "RestartJob")], [P("PodEvicted", "RestartJob")], False),
        ([P("PodFailed", "RestartPod"), P("PodEvicted", "RestartPod")], None, False),
    ],
)
def test_failure_events_without_any_policy_are_flagged(job_policies, task_policies, flagged):
    job = b.volcano_job(policies=job_policies, tasks=[b.task(replicas=4, policies=task_policies)])
    assert paths(CODE, job) == (["spec.policies"] if flagged else [])


def test_each_task_must_be_covered():
    job = b.volcano_job(policies=[], tasks=[b.task("m", policies=[P("*", "RestartJob")]), b.task()])
    (finding,) = engine.check_object(job, select=[CODE])
    assert "PodFailed and PodEvicted" in finding.message


def test_remediation_adds_restart_job_for_the_missing_events_only():
    out = fixed(CODE, b.volcano_job(policies=[P("PodEvicted", "AbortJob")]))
    assert out["spec"]["policies"] == [P("PodEvicted", "AbortJob"), P("PodFailed", "RestartJob")]
    assert paths(CODE, out) == []
