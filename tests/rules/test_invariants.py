"""The invariant table: twelve invariants, each rule code under at most one, every code a registered rule."""

from __future__ import annotations

from collections import Counter

from gpufleet.rules import registry
from gpufleet.rules.invariants import INVARIANTS, invariant_of


def test_there_are_twelve_invariants_numbered_in_order():
    assert [inv.number for inv in INVARIANTS] == list(range(1, 13))


def test_every_code_in_the_table_is_a_rule_and_belongs_to_one_invariant():
    codes = Counter(code for inv in INVARIANTS for code in inv.codes)
    assert set(codes) <= set(registry.REGISTRY) and max(codes.values()) == 1


def test_a_code_maps_to_its_invariant_and_an_unrelated_code_to_none():
    found = invariant_of("GANG204")
    assert found is not None and (found.number, found.name) == (5, "restart scope is the gang")
    assert invariant_of("GANG301") is None


def test_the_users_table_in_docs_predict_is_this_table():
    from tests.conftest import REPO

    text = (REPO / "docs" / "predict.md").read_text(encoding="utf-8")
    for inv in INVARIANTS:
        assert f"| {inv.number} | {inv.name} | {inv.statement} | {', '.join(inv.codes) or '(none yet)'} |" in text
