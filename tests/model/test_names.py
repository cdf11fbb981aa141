"""Names: duplicates, the shared Volcano queue names, reserved names."""

from __future__ import annotations

import pytest

from tests.model.expect import Case, clean, params, reported

CASES = [
    Case(
        "duplicate-pool",
        lambda f: f.with_pool("h100", "volcano", nodeLabels={"gpufleet.dev/pool": "h100-b"}),
        lambda f: f.with_pool("h200", "volcano"),
        "pools[2].name",
        "duplicate name 'h100'",
    ),
    Case(
        "duplicate-team",
        lambda f: f.with_team("alpha", namespaces=["alpha-2"]),
        lambda f: f.with_team("gamma"),
        "teams[2].name",
        "teams[0] already uses it",
    ),
    Case(
        "duplicate-cohort",
        lambda f: f.with_cohort("ml"),
        lambda f: f.with_cohort("vision"),
        "cohorts[1].name",
        "duplicate name 'ml'",
    ),
    Case(
        "duplicate-priority-class",
        lambda f: f.with_priority_class("gang-standard", 5),
        lambda f: f.with_priority_class("gang-low", 5),
        "priorityClasses[1].name",
        "duplicate name",
    ),
    Case(
        "team-named-like-a-cohort",
        lambda f: f.with_cohort("alpha"),
        lambda f: f.with_cohort("alpha-org"),
        "teams[0].name",
        "share Volcano's queue names",
    ),
    Case(
        "team-named-root",
        lambda f: f.with_team("root", namespaces=["r"]),
        lambda f: f.with_team("rooted", namespaces=["r"]),
        "teams[2].name",
        "reserved",
    ),
    Case(
        "cohort-named-default",
        lambda f: f.with_cohort("default"),
        lambda f: f.with_cohort("defaults"),
        "cohorts[1].name",
        "reserved",
    ),
    Case(
        "system-priority-class",
        lambda f: f.with_priority_class("system-gangs"),
        lambda f: f.with_priority_class("gangs-system"),
        "priorityClasses[1].name",
        "'system-' prefix",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_bad_name_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_names_pass(case: Case) -> None:
    clean(case)
