"""Coscheduling pools: one team's, no cohort, no borrowing, pinned scheduler-plugins chart."""

from __future__ import annotations

import pytest

from tests.model.builders import FleetBuilder
from tests.model.expect import Case, clean, params, reported


def cosched(b: FleetBuilder) -> FleetBuilder:
    """pools[2] 'l40s' held by the coscheduling plugin, owned by teams[2] 'solo' (no cohort, no other quota)."""
    return b.with_pool("l40s", "coscheduling", nodes=2, coldStartBudget="4m").with_team(
        "solo", quota={"l40s": {"nominal": 16}}
    )


CASES = [
    Case(
        "second-team",
        lambda f: cosched(f).with_team("duo", quota={"l40s": {"nominal": 0}}),
        cosched,
        "teams[3].quota.l40s",
        "already belongs to team 'solo'",
    ),
    Case(
        "cohort-quota",
        lambda f: cosched(f).set("cohorts[0].quota", {"l40s": {"nominal": 4}}),
        cosched,
        "cohorts[0].quota.l40s",
        "a cohort cannot share it",
    ),
    Case(
        "borrowing",
        lambda f: cosched(f).set("teams[2].cohort", "ml").set("teams[2].quota.l40s.borrowingLimit", 4),
        cosched,
        "teams[2].quota.l40s.borrowingLimit",
        "cannot borrow or lend",
    ),
    Case(
        "lending",
        lambda f: cosched(f).set("teams[2].cohort", "ml").set("teams[2].quota.l40s.lendingLimit", 4),
        cosched,
        "teams[2].quota.l40s.lendingLimit",
        "cannot borrow or lend",
    ),
    Case(
        "owner-with-other-quota",
        lambda f: cosched(f).set("teams[2].quota.h100", {"nominal": 0}),
        cosched,
        "teams[2].quota.h100",
        "would never be used",
    ),
    Case(
        "no-node-labels",
        lambda f: cosched(f).drop("pools[2].nodeLabels"),
        cosched,
        "pools[2].nodeLabels",
        "could land on any node",
    ),
    Case(
        "topology-levels",
        lambda f: cosched(f).set("pools[2].topologyLevels", ["kubernetes.io/hostname"]),
        cosched,
        "pools[2].topologyLevels",
        "ignores them",
    ),
    Case(
        "chart-version",
        lambda f: cosched(f).set("engines.coscheduling.chartVersion", "0.33.1"),
        cosched,
        "engines.coscheduling.chartVersion",
        "not supported",
    ),
    Case(
        "engine-namespace",
        lambda f: cosched(f).append("teams[2].namespaces", "scheduler-plugins"),
        cosched,
        "teams[2].namespaces[1]",
        "coscheduling engine's namespace",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_misuse_of_a_coscheduling_pool_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_coscheduling_pool_passes(case: Case) -> None:
    clean(case)


def test_the_engine_defaults_to_the_pinned_chart_and_its_scheduler_name() -> None:
    engine = cosched(FleetBuilder()).model().engines.coscheduling
    assert (engine.chart_version, engine.scheduler_name) == ("0.34.7", "scheduler-plugins-scheduler")
