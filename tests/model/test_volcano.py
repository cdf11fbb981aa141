"""Volcano scheduler settings against the queues the fleet renders."""

from __future__ import annotations

import pytest

from tests.model.expect import Case, clean, params, reported, setting

ACTIONS = ["enqueue", "allocate", "gangreclaim", "backfill"]


def _no_volcano(f):
    return f.drop("pools[1]").drop("teams[0].quota.a100").drop("teams[1].quota.a100")


CASES = [
    setting(
        "unknown-action",
        "volcano.actions",
        [*ACTIONS, "reclaimm"],
        [*ACTIONS, "gangpreempt"],
        "unknown Volcano action 'reclaimm'",
        at="volcano.actions[4]",
    ),
    setting(
        "duplicate-action",
        "volcano.actions",
        [*ACTIONS, "allocate"],
        ACTIONS,
        "already listed at actions[1]",
        at="volcano.actions[4]",
    ),
    *(
        Case(
            f"no-allocate-{'-'.join(actions) or 'empty'}",
            lambda f, a=actions: f.set("volcano.actions", list(a)),
            lambda f: f.set("volcano.actions", ACTIONS),
            "volcano.actions",
            "no 'allocate'",
        )
        for actions in (["enqueue", "backfill"], [], ["enqueue", "gangreclaim"])
    ),
    Case(
        "overcommit-with-volcano-pools",
        lambda f: f.set("volcano.overcommitFactor", 1.2),
        lambda f: _no_volcano(f).set("volcano.overcommitFactor", 1.2),
        "volcano.overcommitFactor",
        "overcommitFactor 1.2",
    ),
    setting("overcommit-below-one", "volcano.overcommitFactor", "0.5", "1.0", "Volcano GPU pools"),
    Case(
        "proportion-with-cohorts",
        lambda f: f.set("volcano.plugin", "proportion"),
        lambda f: (
            f.set("volcano.plugin", "proportion")
            .drop("teams[0].quota.a100")
            .drop("teams[1].quota.a100")
            .with_team("solo", quota={"a100": {"nominal": 8}})
        ),
        "volcano.plugin",
        "teams alpha, beta have Volcano quota inside cohorts",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_bad_scheduler_setting_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_scheduler_setting_passes(case: Case) -> None:
    clean(case)
