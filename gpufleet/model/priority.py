"""Priority classes for gang workloads.

Each becomes a ``scheduling.k8s.io/v1`` PriorityClass and a Kueue
WorkloadPriorityClass of the same name and value. Gang priority classes default to
``preemptionPolicy: Never``: per-pod preemption kills a rank in many gangs and frees
too little to run anything; Kueue and Volcano preempt whole workloads instead.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gpufleet.model.base import Base, Name


class PriorityClass(Base):
    name: Name
    """PriorityClass and WorkloadPriorityClass name (not starting with system-)."""
    value: int = Field(ge=-2147483648, le=1000000000)
    """Priority value; user classes stay at or below 1,000,000,000 (higher is reserved for system classes)."""
    description: str = Field(default="", max_length=2048)
    """Human-readable purpose of the class."""
    preemption_policy: Literal["Never", "PreemptLowerPriority"] = "Never"
    """Must stay Never for gangs: per-pod preemption breaks running gangs (whole-workload preemption is Kueue's and Volcano's job)."""
    global_default: bool = False
    """Make this the cluster's default PriorityClass (at most one class)."""
