"""Which rules need the whole stack, derived from the registry."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from gpufleet.policypack import stack
from gpufleet.rules import registry


@pytest.mark.parametrize(
    "code, scopes",
    [
        ("GANG501", ("charts",)),
        ("GANG505", ("charts",)),
        ("GANG504", ("objects",)),
        ("GANG001", ("objects",)),
        ("GANG104", ("run",)),
        ("GANG301", ()),
        ("GANG402", ()),
        ("GANG601", ()),
    ],
)
def test_stack_scopes_follow_what_the_rule_reads(code, scopes):
    assert stack.scopes(registry.get(code)) == scopes


@dataclass
class FlaggedRule:
    """A rule that declares whether it relates objects (the flag the Rule API may grow)."""

    needs_objects: bool
    code: str = "GANG999"
    check_run: None = None

    def applies_to(self, obj):
        return False


@pytest.mark.parametrize("flag", [True, False])
def test_a_needs_objects_flag_wins_over_reading_the_source(flag):
    assert stack.relates_objects(FlaggedRule(flag)) is flag
    assert stack.scopes(FlaggedRule(flag)) == (("objects",) if flag else ())
