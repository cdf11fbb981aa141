"""GANG203: retry budgets must stay bounded (option maxRetries, default 10)."""

from __future__ import annotations

import pytest

from gpufleet.rules.api import CheckContext
from gpufleet.settings import rule_options
from tests.rules import builders as b
from tests.rules.helpers import fixed, paths

CODE = "GANG203"


@pytest.mark.parametrize("max_retry, expected", [(None, []), (3, []), (10, []), (11, ["spec.maxRetry"])])
def test_a_volcano_max_retry_above_the_limit_is_flagged(max_retry, expected):
    assert paths(CODE, b.volcano_job(max_retry=max_retry)) == expected


def test_the_limit_is_an_option():
    job = b.volcano_job(max_retry=5)
    assert paths(CODE, job, CheckContext(options=rule_options({CODE: {"maxRetries": 4}}))) == ["spec.maxRetry"]


@pytest.mark.parametrize(
    "policy, expected",
    [
        (None, []),
        ({"restartStrategy": "Recreate"}, []),
        ({"maxRestarts": 50}, ["spec.failurePolicy.maxRestarts"]),
        (
            {"rules": [{"name": "x", "action": "RestartJobSetAndIgnoreMaxRestarts"}]},
            ["spec.failurePolicy.rules[0].action"],
        ),
    ],
)
def test_jobset_restarts_must_be_bounded_and_counted(policy, expected):
    assert paths(CODE, b.jobset(failure_policy=policy)) == expected


@pytest.mark.parametrize("backoff", [None, 6, 100])
def test_a_batch_job_gangs_backoff_limit_is_left_to_gang204(backoff):
    job = b.batch_job(parallelism=4, backoff_limit=backoff, gpus=1)
    assert paths(CODE, job) == []
    assert paths("GANG204", job) == ([] if backoff == 0 else ["spec.backoffLimit"])


@pytest.mark.parametrize("per_index, expected", [(None, []), (10, []), (30, ["spec.backoffLimitPerIndex"])])
def test_a_batch_job_gang_must_bound_its_per_index_retries(per_index, expected):
    job = b.batch_job(parallelism=4, gpus=1, completion_mode="Indexed")
    if per_index is not None:
        job["spec"]["backoffLimitPerIndex"] = per_index
    assert paths(CODE, job) == expected


def test_remediation_clamps_to_the_limit_and_counts_every_restart():
    js = b.jobset(
        failure_policy={"maxRestarts": 99, "rules": [{"name": "x", "action": "RestartJobAndIgnoreMaxRestarts"}]}
    )
    out = fixed(CODE, js)
    assert out["spec"]["failurePolicy"] == {"maxRestarts": 10, "rules": [{"name": "x", "action": "RestartJob"}]}


@pytest.mark.parametrize("strategy", ["InPlaceRestart", "Recreate"])
def test_a_jobset_childs_backoff_limit_is_no_budget_of_this_rule(strategy):
    js = b.jobset(
        replicated_jobs=[b.replicated_job(backoff_limit=2147483647, restart_policy="Never")],
        failure_policy={"restartStrategy": strategy, "maxRestarts": 3},
    )
    assert paths(CODE, js) == []
