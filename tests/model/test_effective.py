"""Settings that would do nothing on the engine are rejected with the setting that does."""

from __future__ import annotations

import pytest

from tests.model.builders import fleet
from tests.model.expect import Case, clean, params, reported, setting


def _actions(third: str) -> list[str]:
    return ["enqueue", "allocate", third, "backfill"]


CASES = [
    *(
        setting(
            f"{action}-with-only-never-priority-classes",
            "volcano.actions",
            _actions(action),
            _actions(f"gang{action}"),
            says,
            at="volcano.actions[2]",
        )
        for action, says in [
            ("reclaim", "skips preemptors with preemptionPolicy: Never"),
            ("preempt", "Volcano's preempt action skips"),
        ]
    ),
    Case(
        "weight-on-a-volcano-only-team-under-capacity",
        lambda f: f.with_team("gamma", quota={"a100": {"nominal": 0}}, fairShareWeight=2).set(
            "admission.fairSharing", {}
        ),
        lambda f: f.with_team("gamma", quota={"a100": {"nominal": 0}}).set("admission.fairSharing", {}),
        "teams[2].fairShareWeight",
        "capacity never reads a queue weight",
    ),
    Case(
        "weight-on-a-kueue-team-without-fair-sharing",
        lambda f: f.set("teams[0].fairShareWeight", 2),
        lambda f: f.set("teams[0].fairShareWeight", 2).set("admission.fairSharing", {}),
        "teams[0].fairShareWeight",
        "Kueue only under admission.fairSharing",
    ),
    Case(
        "weight-on-a-cohort-without-fair-sharing",
        lambda f: f.set("cohorts[0].fairShareWeight", 3),
        lambda f: f.set("cohorts[0].fairShareWeight", 3).set("admission.fairSharing", {}),
        "cohorts[0].fairShareWeight",
        "no engine reads this weight",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_setting_without_effect_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_effective_setting_passes(case: Case) -> None:
    clean(case)


def test_a_volcano_team_weight_is_kept_under_the_proportion_plugin() -> None:
    gamma = (
        fleet()
        .with_team("gamma", quota={"a100": {"nominal": 0}}, fairShareWeight=2)
        .set("volcano.plugin", "proportion")
    )
    assert not [i for i in gamma.issues() if i.path == "teams[2].fairShareWeight"]
