"""Quota on a pool, as teams and cohorts declare it.

Quota is written in units of the pool's quota resource (GPUs); every other resource
of the pool (cpu, memory, rdma/ib) follows the node shape unless overridden under
``resources``. Read by validation (limits, sums against capacity) and the renderers.
"""

from __future__ import annotations

from pydantic import Field

from gpufleet.model.base import Base, Quantity


class ResourceQuota(Base):
    nominal: Quantity
    """Quota of this resource the owner is entitled to."""
    borrowing_limit: Quantity | None = None
    """How much above nominal the owner may borrow from its cohort; unset = unlimited."""
    lending_limit: Quantity | None = None
    """How much of nominal the owner may lend to its cohort; unset = all of it."""


class PoolQuota(Base):
    nominal: Quantity
    """Nominal quota on the pool, in units of the pool's gpuResource (GPUs)."""
    borrowing_limit: Quantity | None = None
    """GPUs above nominal that may be borrowed from the cohort; unset = unlimited. Needs a cohort."""
    lending_limit: Quantity | None = None
    """GPUs of nominal that may be lent to the cohort; unset = all of it. Needs a cohort; at most nominal."""
    resources: dict[str, ResourceQuota] = Field(default_factory=dict)
    """Explicit quota for other resources of the pool; by default they scale with the node shape."""
