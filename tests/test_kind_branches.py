"""scripts/kind_branches.py counts a rule's decisions by kind, and not its other comparisons."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "kind_branches.py"
_spec = importlib.util.spec_from_file_location("kind_branches", _SCRIPT)
assert _spec is not None and _spec.loader is not None
kind_branches = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kind_branches)


@pytest.mark.parametrize(
    "source",
    [
        'if view.kind == "TrainJob": pass',
        "if (view.group, view.kind) in VOLCANO_KINDS: pass",
        'ok = obj.get("kind") != "Job"',
        'ok = view.group == "kubeflow.org"',
        'ok = obj["apiVersion"] == "batch/v1"',
    ],
)
def test_a_comparison_by_kind_or_group_is_a_branch(source: str) -> None:
    assert kind_branches.count_module(source) == (1, 0)


@pytest.mark.parametrize(
    "source",
    [
        "if view.total_pods < 2: pass",
        'ok = policy.get("action") == "RestartJob"',
        "RULE = Rule(kinds=KINDS)",
    ],
)
def test_other_comparisons_and_subscriptions_are_not_branches(source: str) -> None:
    assert kind_branches.count_module(source)[0] == 0


def test_a_kinds_subscription_is_counted_apart() -> None:
    assert kind_branches.count_module("RULE = Rule(kinds=KINDS)") == (0, 1)


def test_the_tree_is_measured_without_error() -> None:
    result = kind_branches.measure(_SCRIPT.parent.parent)
    assert result["linesRules"] > 0 and result["kindBranches"] == sum(result["perModule"].values())
