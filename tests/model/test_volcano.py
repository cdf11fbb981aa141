"""Volcano scheduler settings against the queues the fleet renders."""

from __future__ import annotations

import pytest

from tests.model.expect import Case, clean, params, reported

ACTIONS = ["enqueue", "allocate", "gangreclaim", "backfill"]


def _no_volcano(f):
    return f.drop("pools[1]").drop("teams[0].quota.a100").drop("teams[1].quota.a100")


CASES = [
    Case(
        "unknown-action",
        lambda f: f.set("volcano.actions", [*ACTIONS, "reclaimm"]),
        lambda f: f.set("volcano.actions", [*ACTIONS, "gangpreempt"]),
        "volcano.actions[4]",
        "unknown Volcano action 'reclaimm'",
    ),
    Case(
        "duplicate-action",
        lambda f: f.set("volcano.actions", [*ACTIONS, "allocate"]),
        lambda f: f.set("volcano.actions", ACTIONS),
        "volcano.actions[4]",
        "already listed at actions[1]",
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
    Case(
        "overcommit-below-one",
        lambda f: f.set("volcano.overcommitFactor", "0.5"),
        lambda f: f.set("volcano.overcommitFactor", "1.0"),
        "volcano.overcommitFactor",
        "Volcano GPU pools",
    ),
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
