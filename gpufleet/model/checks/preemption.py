"""Preemption and fair sharing, as Kueue's CRD rules and webhooks check them.

- ``reclaimWithinCohort: Never`` with ``borrowWithinCohort.policy`` other than Never
  is rejected by the ClusterQueue CEL rule;
- ``borrowWithinCohort`` is classic preemption only, unused under fair sharing;
- ``maxPriorityThreshold`` only means something with ``policy: LowerPriority``;
- a fair-sharing weight is 0 (always loses) or above 1e-9, never negative;
- ``fairSharing.preemptionStrategies`` is exactly one of three lists (manager config
  validation). Registered in ``CHECKS``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.admission import PREEMPTION_STRATEGIES
from gpufleet.model.fleet import Fleet
from gpufleet.yamlin.errors import Issue

MIN_WEIGHT = Decimal("1e-9")


def _team(fleet: Fleet, i: int) -> Iterator[Issue]:
    p = fleet.teams[i].preemption
    base = FieldPath.of("teams", i, "preemption")
    borrow = base.child("borrowWithinCohort")
    if p.reclaim_within_cohort == "Never" and p.borrow_within_cohort.policy != "Never":
        yield Issue(
            borrow.child("policy"),
            f"borrowWithinCohort.policy {p.borrow_within_cohort.policy} needs reclaimWithinCohort other than Never (Kueue rejects the pair)",
            "set borrowWithinCohort.policy: Never, or reclaimWithinCohort: LowerPriority or Any",
        )
    if fleet.admission.fair_sharing is not None and p.borrow_within_cohort.policy != "Never":
        yield Issue(
            borrow.child("policy"),
            "borrowWithinCohort is not used with fair sharing (admission.fairSharing is set)",
            "set borrowWithinCohort.policy: Never, or remove admission.fairSharing",
        )
    if p.borrow_within_cohort.max_priority_threshold is not None and p.borrow_within_cohort.policy != "LowerPriority":
        yield Issue(
            borrow.child("maxPriorityThreshold"),
            "maxPriorityThreshold applies only to borrowWithinCohort.policy: LowerPriority",
            "set policy: LowerPriority or remove maxPriorityThreshold",
        )


def _weights(fleet: Fleet) -> Iterator[Issue]:
    for section, items in fleet.sections():
        for i, item in enumerate(items):
            w = item.fair_share_weight
            if w < 0 or 0 < w < MIN_WEIGHT:
                yield Issue(
                    FieldPath.of(section, i, "fairShareWeight"),
                    f"fairShareWeight {w:f} must be 0 (always yields) or at least 1e-9",
                    "use 0 or a positive weight such as 1",
                )


def _strategies(fleet: Fleet) -> Iterator[Issue]:
    fair = fleet.admission.fair_sharing
    if fair is not None and tuple(fair.preemption_strategies) not in PREEMPTION_STRATEGIES:
        allowed = " or ".join("[" + ", ".join(s) + "]" for s in PREEMPTION_STRATEGIES)
        yield Issue(
            FieldPath.of("admission", "fairSharing", "preemptionStrategies"),
            f"{fair.preemption_strategies} is not an allowed list; Kueue accepts {allowed}",
            "use [LessThanOrEqualToFinalShare, LessThanInitialShare]",
        )


def check(fleet: Fleet) -> Iterable[Issue]:
    for i in range(len(fleet.teams)):
        yield from _team(fleet, i)
    yield from _weights(fleet)
    yield from _strategies(fleet)
