"""The Volcano queue tree: Volcano's queue-webhook arithmetic and depth."""

from __future__ import annotations

from decimal import Decimal

import pytest

from gpufleet.model.checks.volcano_queues import tree
from tests.model.builders import fleet
from tests.model.expect import Case, clean, params, reported, setting


def _nested(levels: int):
    """Put cohort ml under a chain of ``levels - 1`` more cohorts: c0 above ml, c1 above c0, ..."""

    def edit(f):
        if levels > 1:
            f.set("cohorts[0].parent", "c0")
        for i in range(levels - 1):
            f.with_cohort(f"c{i}", parent=f"c{i + 1}" if i < levels - 2 else None)
        return f

    return edit


def _capped_cohort(team_borrowing: int):
    """ml under org, with a borrowingLimit of 2 (capability 14 = 12 deserved + 2); beta borrows up to team_borrowing."""
    return lambda f: (
        f.set("cohorts[0].parent", "org")
        .with_cohort("org")
        .set("cohorts[0].quota.a100", {"nominal": 0, "borrowingLimit": 2})
        .set("teams[1].quota.a100.borrowingLimit", team_borrowing)
    )


CASES = [
    setting("guarantee-above-deserved", "teams[0].quota.a100.lendingLimit", -2, 2, "guarantee 10 > deserved 8"),
    setting("deserved-above-capability", "teams[1].quota.a100.borrowingLimit", -1, 0, "deserved 4 > capability 3"),
    setting(
        "children-above-parent",
        "cohorts[0].quota.a100",
        {"nominal": -2},
        {"nominal": 2},
        "children's deserved sums to 12",
        at="cohorts[0].quota.a100.nominal",
    ),
    Case(
        "child-capability-above-capped-ancestor",
        _capped_cohort(11),
        _capped_cohort(10),
        "teams[1].quota.a100.borrowingLimit",
        "capability 15 for nvidia.com/gpu exceeds the capability 14 of its ancestor 'ml'",
    ),
    Case(
        "six-levels-deep",
        _nested(5),
        _nested(4),
        "teams[0].cohort",
        "depth 6 (root -> c3 -> c2 -> c1 -> c0 -> ml -> alpha)",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_queue_volcano_would_reject_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_queue_tree_passes(case: Case) -> None:
    clean(case)


def test_a_cohort_queue_is_owed_its_members_quota_plus_its_own() -> None:
    model = fleet().set("cohorts[0].quota.a100", {"nominal": 2}).model()
    nodes = tree(model, model.pool("a100"))
    cohort, alpha, beta = nodes["ml"], nodes["alpha"], nodes["beta"]
    assert cohort.deserved["nvidia.com/gpu"] == alpha.deserved["nvidia.com/gpu"] + beta.deserved["nvidia.com/gpu"] + 2
    assert cohort.deserved["cpu"] == cohort.deserved["nvidia.com/gpu"] * 64 / 8  # cpu follows the node shape
    assert beta.capability["nvidia.com/gpu"] == Decimal(4 + 4) and alpha.capability["nvidia.com/gpu"] is None


def test_a_team_lending_limit_becomes_its_guarantee_and_its_cohorts() -> None:
    model = fleet().set("teams[1].quota.a100.lendingLimit", 1).model()
    nodes = tree(model, model.pool("a100"))
    assert nodes["beta"].guarantee["nvidia.com/gpu"] == Decimal(4 - 1)
    assert nodes["ml"].guarantee["nvidia.com/gpu"] == nodes["beta"].guarantee["nvidia.com/gpu"]


def test_only_teams_with_volcano_quota_count_towards_depth() -> None:
    assert _nested(5)(fleet()).drop("teams[0].quota.a100").drop("teams[1].quota.a100").issues() == []


def test_without_hierarchy_every_queue_sits_under_root_and_depth_is_not_checked() -> None:
    b = _nested(5)(fleet()).set("volcano.hierarchy", False)
    model = b.model()
    nodes = tree(model, model.pool("a100"))
    assert set(nodes) == {"alpha", "beta"} and {n.parent for n in nodes.values()} == {None}
    assert b.issues() == []


def test_a_team_without_a_cohort_is_capped_at_its_nominal_quota() -> None:
    model = fleet().with_team("solo", quota={"a100": {"nominal": 2}}).model()
    assert tree(model, model.pool("a100"))["solo"].capability["nvidia.com/gpu"] == Decimal(2)
