"""Preemption and fair sharing, as Kueue's CEL rules and webhooks check them."""

from __future__ import annotations

import pytest

from tests.model.expect import Case, clean, params, reported

BORROW = "teams[0].preemption.borrowWithinCohort"
FAIR = {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]}

CASES = [
    Case(
        "never-reclaim-with-borrow-preemption",
        lambda f: f.set(
            "teams[0].preemption", {"reclaimWithinCohort": "Never", "borrowWithinCohort": {"policy": "LowerPriority"}}
        ),
        lambda f: f.set(
            "teams[0].preemption",
            {"reclaimWithinCohort": "LowerPriority", "borrowWithinCohort": {"policy": "LowerPriority"}},
        ),
        f"{BORROW}.policy",
        "needs reclaimWithinCohort other than Never",
    ),
    Case(
        "borrow-preemption-under-fair-sharing",
        lambda f: f.set("admission.fairSharing", FAIR).set(f"{BORROW}.policy", "LowerPriority"),
        lambda f: f.set("admission.fairSharing", FAIR).set(f"{BORROW}.policy", "Never"),
        f"{BORROW}.policy",
        "not used with fair sharing",
    ),
    Case(
        "threshold-without-lower-priority",
        lambda f: f.set(BORROW, {"policy": "Never", "maxPriorityThreshold": 100}),
        lambda f: f.set(BORROW, {"policy": "LowerPriority", "maxPriorityThreshold": 100}),
        f"{BORROW}.maxPriorityThreshold",
        "only to borrowWithinCohort.policy: LowerPriority",
    ),
    Case(
        "negative-team-weight",
        lambda f: f.set("teams[1].fairShareWeight", -1),
        lambda f: f.set("teams[1].fairShareWeight", 0).set("admission.fairSharing", {}),
        "teams[1].fairShareWeight",
        "must be 0",
    ),
    Case(
        "tiny-cohort-weight",
        lambda f: f.set("cohorts[0].fairShareWeight", 1e-10),
        lambda f: f.set("cohorts[0].fairShareWeight", "1n").set("admission.fairSharing", {}),
        "cohorts[0].fairShareWeight",
        "at least 1e-9",
    ),
    Case(
        "strategies-in-the-wrong-order",
        lambda f: f.set(
            "admission.fairSharing.preemptionStrategies", ["LessThanInitialShare", "LessThanOrEqualToFinalShare"]
        ),
        lambda f: f.set("admission.fairSharing.preemptionStrategies", ["LessThanInitialShare"]),
        "admission.fairSharing.preemptionStrategies",
        "not an allowed list",
    ),
    Case(
        "no-strategies",
        lambda f: f.set("admission.fairSharing.preemptionStrategies", []),
        lambda f: f.set("admission.fairSharing.preemptionStrategies", ["LessThanOrEqualToFinalShare"]),
        "admission.fairSharing.preemptionStrategies",
        "not an allowed list",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_bad_preemption_settings_are_reported_at_their_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_preemption_settings_pass(case: Case) -> None:
    clean(case)
