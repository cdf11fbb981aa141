"""Volcano scheduler settings, rendered into ``volcano-scheduler.conf``.

The renderer keeps the conf consistent with the queue fields it writes: the
``capacity`` plugin reads ``deserved``/``capability``/``guarantee`` (and needs
``enableHierarchy`` for parent queues), ``proportion`` reads ``weight``; the two are
never loaded together.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import Field

from gpufleet.model.base import Base, Quantity

VOLCANO_ACTIONS = ("enqueue", "allocate", "backfill", "preempt", "reclaim", "gangpreempt", "gangreclaim", "shuffle")


class VolcanoScheduler(Base):
    plugin: Literal["capacity", "proportion"] = "capacity"
    """Queue-share plugin: capacity (deserved/capability, hierarchical) or proportion (weights)."""
    hierarchy: bool = True
    """Capacity plugin hierarchy: cohorts become parent queues."""
    actions: list[str] = Field(default_factory=lambda: ["enqueue", "allocate", "gangreclaim", "backfill"])
    """Scheduler actions in order. Prefer gangreclaim/gangpreempt, which evict whole jobs."""
    overcommit_factor: Quantity = Decimal(1)
    """Enqueue overcommit; must be 1.0 when the fleet has Volcano GPU pools."""
