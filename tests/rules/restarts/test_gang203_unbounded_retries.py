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


@pytest.mark.parametrize(
    "parallelism, backoff, expected",
    [
        (4, None, []),
        (4, 6, []),
        (4, 100, ["spec.backoffLimit"]),
        (1, 100, []),
    ],
)
def test_batch_job_gangs_must_bound_their_backoff(parallelism, backoff, expected):
    assert paths(CODE, b.batch_job(parallelism=parallelism, backoff_limit=backoff, gpus=1)) == expected


def test_remediation_clamps_to_the_limit_and_counts_every_restart():
    js = b.jobset(
        failure_policy={"maxRestarts": 99, "rules": [{"name": "x", "action": "RestartJobAndIgnoreMaxRestarts"}]}
    )
    out = fixed(CODE, js)
    assert out["spec"]["failurePolicy"] == {"maxRestarts": 10, "rules": [{"name": "x", "action": "RestartJob"}]}


@pytest.mark.parametrize(
    "strategy, expected", [("InPlaceRestart", []), ("Recreate", ["spec.replicatedJobs[0].template.spec.backoffLimit"])]
)
def test_the_child_backoff_limit_jobset_requires_for_in_place_restarts_is_no_budget(strategy, expected):
    js = b.jobset(
        replicated_jobs=[b.replicated_job(backoff_limit=2147483647, restart_policy="Never")],
        failure_policy={"restartStrategy": strategy, "maxRestarts": 3},
    )
    assert paths(CODE, js) == expected
