"""Teams and cohorts: who owns which quota, and who may borrow from whom.

A team becomes one Kueue ClusterQueue (plus a LocalQueue in each of its namespaces)
for its quota on Kueue pools, and one Volcano leaf queue for its quota on Volcano
pools. Cohorts become Kueue Cohorts and Volcano parent queues. Read by validation,
the renderers and the Pulumi components (which protect live quota objects; see
``lifecycle``).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import Field

from gpufleet.model.base import Base, Name, Quantity
from gpufleet.model.quota import PoolQuota


class BorrowWithinCohort(Base):
    policy: Literal["Never", "LowerPriority"] = "Never"
    """Whether this team may preempt lower-priority work in the cohort to borrow."""
    max_priority_threshold: int | None = None
    """Only workloads at or below this priority may be preempted to borrow."""


class Preemption(Base):
    reclaim_within_cohort: Literal["Never", "LowerPriority", "Any"] = "Any"
    """Reclaim lent quota from borrowers in the cohort (Any: regardless of priority)."""
    within_cluster_queue: Literal["Never", "LowerPriority", "LowerOrNewerEqualPriority"] = "LowerPriority"
    """Preempt the team's own lower-priority workloads."""
    borrow_within_cohort: BorrowWithinCohort = Field(default_factory=BorrowWithinCohort)
    """Preemption to borrow above nominal (classic preemption only; Never under fair sharing)."""


class Cohort(Base):
    name: Name
    """Cohort name: the Kueue Cohort and Volcano parent queue name."""
    parent: Name | None = None
    """Parent cohort; unset for a root."""
    quota: dict[str, PoolQuota] = Field(default_factory=dict)
    """Shared quota per pool, added on top of the members' quota (it does not cap them)."""
    fair_share_weight: Quantity = Decimal(1)
    """Kueue fair-sharing weight: 0 (always yields) or at least 1e-9."""


class Team(Base):
    name: Name
    """Team name: the ClusterQueue and Volcano queue name."""
    namespaces: list[Name] = Field(min_length=1)
    """Namespaces whose workloads run on this team's quota."""
    cohort: Name | None = None
    """Cohort the team borrows from and lends to; unset = no borrowing or lending."""
    quota: dict[str, PoolQuota] = Field(default_factory=dict)
    """Quota per pool name."""
    fair_share_weight: Quantity = Decimal(1)
    """Kueue fair-sharing weight: 0 (always yields) or at least 1e-9."""
    preemption: Preemption = Field(default_factory=Preemption)
    """Kueue ClusterQueue preemption policy."""
    queueing_strategy: Literal["BestEffortFIFO", "StrictFIFO"] = "BestEffortFIFO"
    """Kueue queueing strategy; StrictFIFO blocks the queue (and lending) behind its head workload."""
    stop_policy: Literal["None", "Hold", "HoldAndDrain"] = "None"
    """Kueue stopPolicy; set HoldAndDrain to drain a team before retiring it."""
    lifecycle: Literal["active", "draining", "retired"] = "active"
    """active and draining quota objects are protected from deletion; retired unprotects them (remove the team next)."""
    local_queue: Name | None = None
    """LocalQueue name in each namespace; defaults to the team name."""
    volcano_reclaimable: bool = True
    """Whether other queues may reclaim resources this team borrowed on Volcano pools."""
    volcano_namespaces: list[Name] = Field(default_factory=list)
    """Which of ``namespaces`` run the team's Volcano gangs (Kueue never manages them); the others are Kueue's.
    Required when the team has quota on both Kueue and Volcano pools; unset for a Volcano-only team = all of them."""

    @property
    def local_queue_name(self) -> str:
        return self.local_queue or self.name
