"""Quota arithmetic: a team's or cohort's GPU quota on a pool, spread over every resource.

Quota is written in units of the pool's ``gpuResource``; every other resource of the
pool (cpu, memory, rdma/ib, ...) follows the node shape: ``nominal_cpu = nominal_gpus
x node_cpu / node_gpus`` (the same for the borrowing and lending limits) unless
``quota.<pool>.resources.<res>`` overrides it. The one owner of these numbers (issue 36):
the model's capacity, Kueue and Volcano checks (:mod:`gpufleet.model.checks.shapes`) judge
exactly what the Kueue and Volcano renderers (:mod:`gpufleet.render.kueue`,
:mod:`gpufleet.render.volcano`) and the plan write; the renderers only format them
(:func:`gpufleet.render.resources.fmt`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Iterable

from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.model.quota import PoolQuota, ResourceQuota

FIRST_RESOURCES = ("cpu", "memory")


@dataclass(frozen=True)
class Amounts:
    """One resource's quota: nominal plus optional limits (None = unset)."""

    nominal: Decimal
    borrowing_limit: Decimal | None = None
    lending_limit: Decimal | None = None


def resource_order(names: Iterable[str]) -> list[str]:
    """The fixed order resources are listed in: cpu, memory, then the rest alphabetically."""
    unique = set(names)
    return [r for r in FIRST_RESOURCES if r in unique] + sorted(unique - set(FIRST_RESOURCES))


def pool_resources(pool: Pool) -> list[str]:
    """Every resource a pool offers (its allocatable plus its quota resource), in :func:`resource_order`."""
    return resource_order([*pool.allocatable, pool.gpu_resource])


def quota_first(pool: Pool) -> list[str]:
    """:func:`pool_resources` with the quota resource first: the order checks report problems in."""
    return [pool.gpu_resource] + [r for r in pool_resources(pool) if r != pool.gpu_resource]


def covered_resources(fleet: Fleet, system: str) -> list[str]:
    """The resources of every ``system`` pool and every quota override on one, in :func:`resource_order`:
    the covered resources of Kueue's single resource group."""
    pools = fleet.pools_of(system)
    names = {res for pool in pools for res in pool_resources(pool)}
    for owner in fleet.quota_owners:
        names.update(res for pool in pools if pool.name in owner.quota for res in owner.quota[pool.name].resources)
    return resource_order(names)


def scale(amount: Decimal | None, per_node: Decimal, gpus: Decimal) -> Decimal | None:
    """``amount`` GPUs' share of a per-node resource (None stays None; a pool without GPUs derives 0)."""
    if amount is None:
        return None
    if not gpus:
        return Decimal(0)
    return amount * per_node / gpus  # multiply first: 3 x 455 / 3 stays exactly 455


def scaled_quota(pool: Pool, quota: PoolQuota) -> dict[str, Amounts]:
    """A pool quota as per-resource amounts, keyed in :func:`resource_order` (do not modify the result)."""
    return _scaled(
        pool.gpu_resource,
        tuple(pool.allocatable.items()),
        quota.nominal,
        quota.borrowing_limit,
        quota.lending_limit,
        tuple(quota.resources.items()),
    )


@lru_cache(maxsize=4096)
def _scaled(
    gpu_resource: str,
    allocatable: tuple[tuple[str, Decimal], ...],
    nominal: Decimal,
    borrowing: Decimal | None,
    lending: Decimal | None,
    overrides: tuple[tuple[str, ResourceQuota], ...],
) -> dict[str, Amounts]:
    """:func:`scaled_quota` of the pool's shape and the quota's numbers (a pure function of immutable values, cached)."""
    per_node = dict(allocatable)
    gpus = per_node.get(gpu_resource, Decimal(0))
    explicit = dict(overrides)
    out: dict[str, Amounts] = {}
    for res in resource_order([*per_node, gpu_resource, *explicit]):
        override = explicit.get(res)
        if override is not None:
            out[res] = Amounts(override.nominal, override.borrowing_limit, override.lending_limit)
        elif res == gpu_resource:
            out[res] = Amounts(nominal, borrowing, lending)
        else:
            shape = per_node.get(res, Decimal(0))
            out[res] = Amounts(
                scale(nominal, shape, gpus) or Decimal(0), scale(borrowing, shape, gpus), scale(lending, shape, gpus)
            )
    return out
