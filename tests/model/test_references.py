"""References: quota pools, cohorts, parents, cycles, teams without quota."""

from __future__ import annotations

import pytest

from tests.model.builders import fleet
from tests.model.expect import Case, Edit, clean, params, reported


def _quota_on_unknown_pool(owners: str, unknown: str, known: str, says: str) -> Case:
    """The first of ``owners`` (``teams`` or ``cohorts``) holds quota on ``unknown``; on ``known`` it passes."""

    def quota_on(pool: str) -> Edit:
        return lambda f: f.set(f"{owners}[0].quota.{pool}", {"nominal": 0})

    id = f"{owners[:-1]}-quota-on-unknown-pool"
    return Case(id, quota_on(unknown), quota_on(known), f"{owners}[0].quota.{unknown}", says)


CASES = [
    _quota_on_unknown_pool("teams", "h200", "a100", "not in pools (known: a100, h100)"),
    _quota_on_unknown_pool("cohorts", "l4", "h100", "'l4'"),
    Case(
        "unknown-team-cohort",
        lambda f: f.set("teams[1].cohort", "mll"),
        lambda f: f,
        "teams[1].cohort",
        "'mll' is not in cohorts",
    ),
    Case(
        "dangling-parent",
        lambda f: f.set("cohorts[0].parent", "org"),
        lambda f: f.set("cohorts[0].parent", "org").with_cohort("org"),
        "cohorts[0].parent",
        "parent cohort 'org'",
    ),
    Case("self-parent", lambda f: f.set("cohorts[0].parent", "ml"), lambda f: f, "cohorts[0].parent", "cycle ml -> ml"),
    Case(
        "two-cohort-cycle",
        lambda f: f.set("cohorts[0].parent", "org").with_cohort("org", parent="ml"),
        lambda f: f.set("cohorts[0].parent", "org").with_cohort("org"),
        "cohorts[0].parent",
        "cycle ml -> org -> ml",
    ),
    Case(
        "active-team-without-quota",
        lambda f: f.with_team("gamma", quota={}),
        lambda f: f.with_team("gamma", quota={}, lifecycle="retired"),
        "teams[2].quota",
        "admit nothing",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_broken_reference_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_references_pass(case: Case) -> None:
    clean(case)


def test_each_cohort_cycle_is_reported_once_naming_its_members() -> None:
    issues = (
        fleet()
        .with_cohort("a", parent="b")
        .with_cohort("b", parent="c")
        .with_cohort("c", parent="a")
        .with_cohort("x", parent="y")
        .with_cohort("y", parent="x")
        .with_cohort("leaf", parent="a")
        .issues()
    )
    cycles = [i for i in issues if "cycle" in i.message]
    assert [(i.path, i.message.split(":")[0]) for i in cycles] == [
        ("cohorts[1].parent", "cohort cycle a -> b -> c -> a"),
        ("cohorts[4].parent", "cohort cycle x -> y -> x"),
    ]


@pytest.mark.parametrize(
    "edit, path, says, fix",
    [
        (
            lambda f: f.set("teams[1].cohort", "mll"),
            "teams[1].cohort",
            "cohort 'mll' is not in cohorts; did you mean 'ml'?",
            "rename it to ml, or add cohort 'mll' to cohorts",
        ),
        (
            lambda f: f.set("cohorts[0].parent", "orgg").with_cohort("org"),
            "cohorts[0].parent",
            "parent cohort 'orgg' is not in cohorts; did you mean 'org'?",
            "rename it to org, or add parent cohort 'orgg' to cohorts",
        ),
        (
            lambda f: f.set("teams[0].quota.h10", {"nominal": 0}),
            "teams[0].quota.h10",
            "which is not in pools (known: a100, h100); did you mean 'h100'?",
            "rename it to h100, or add the pool h10 to pools",
        ),
    ],
    ids=["team-cohort", "cohort-parent", "quota-pool"],
)
def test_a_reference_one_typo_away_from_a_known_name_gets_a_did_you_mean(edit, path, says, fix) -> None:
    [issue] = [i for i in edit(fleet()).issues() if i.path == path]
    assert says in issue.message and issue.fix.startswith(fix)


def test_a_reference_close_to_no_known_name_gets_no_guess() -> None:
    [issue] = [i for i in fleet().set("teams[1].cohort", "platform").issues() if i.path == "teams[1].cohort"]
    assert "did you mean" not in issue.message and issue.fix == "add the cohort to cohorts or correct the name"


def test_a_draining_team_may_have_no_quota() -> None:
    assert fleet().with_team("gamma", quota={}, lifecycle="draining").issues() == []
