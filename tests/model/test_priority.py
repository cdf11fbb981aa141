"""Priority classes of gang workloads."""

from __future__ import annotations

import pytest

from tests.model.builders import fleet
from tests.model.expect import Case, clean, params, reported

CASES = [
    Case(
        "two-global-defaults",
        lambda f: f.set("priorityClasses[0].globalDefault", True).with_priority_class("gang-low", globalDefault=True),
        lambda f: f.set("priorityClasses[0].globalDefault", True).with_priority_class("gang-low"),
        "priorityClasses[1].globalDefault",
        "priorityClasses[0] is already the global default",
    ),
    Case(
        "per-pod-preemption",
        lambda f: f.set("priorityClasses[0].preemptionPolicy", "PreemptLowerPriority"),
        lambda f: f.set("priorityClasses[0].preemptionPolicy", "Never"),
        "priorityClasses[0].preemptionPolicy",
        "evict single pods",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_bad_priority_class_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_priority_class_passes(case: Case) -> None:
    clean(case)


def test_two_classes_may_share_a_value() -> None:
    assert fleet().with_priority_class("gang-standard-b", 1000).issues() == []


def test_a_per_pod_preemption_fix_says_never() -> None:
    issues = fleet().set("priorityClasses[0].preemptionPolicy", "PreemptLowerPriority").issues()
    assert [i.fix for i in issues] == ["set preemptionPolicy: Never"]
