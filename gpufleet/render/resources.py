"""Quota arithmetic: a team's or cohort's GPU quota on a pool, spread over every resource.

Quota is written in units of the pool's ``gpuResource``; every other resource of the
pool (cpu, memory, rdma/ib, ...) follows the node shape: ``nominal_cpu = nominal_gpus
x node_cpu / node_gpus`` (the same for the borrowing and lending limits) unless
``quota.<pool>.resources.<res>`` overrides it. Called by the Kueue and Volcano
renderers and by the plan, so all three agree on every number.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from decimal import ROUND_FLOOR, Decimal
from typing import Iterable

from gpufleet.kubetypes import quantity
from gpufleet.model.pools import Pool
from gpufleet.model.quota import PoolQuota, ResourceQuota

FIRST_RESOURCES = ("cpu", "memory")
_BINARY = ("memory", "ephemeral-storage")


@dataclass(frozen=True)
class Amounts:
    """One resource's quota: nominal plus optional limits (None = unset)."""

    nominal: Decimal
    borrowing_limit: Decimal | None = None
    lending_limit: Decimal | None = None


def is_binary(resource: str) -> bool:
    """Byte-valued resources, written in binary units (``1920Gi``)."""
    return resource in _BINARY or resource.startswith("hugepages-")


@lru_cache(maxsize=4096)
def fmt(resource: str, value: Decimal) -> str:
    """Canonical quantity string; bytes are whole bytes (rounded down) in binary units."""
    if is_binary(resource):
        return quantity.fmt(value.to_integral_value(rounding=ROUND_FLOOR), binary=True)
    return quantity.fmt(value)


def resource_order(names: Iterable[str]) -> list[str]:
    """The fixed order resources are listed in: cpu, memory, then the rest alphabetically."""
    unique = set(names)
    return [r for r in FIRST_RESOURCES if r in unique] + sorted(unique - set(FIRST_RESOURCES))


def pool_resources(pool: Pool) -> list[str]:
    """Every resource a pool offers (its allocatable plus its quota resource)."""
    return resource_order([*pool.allocatable, pool.gpu_resource])


def _scale(amount: Decimal | None, per_node: Decimal, gpus: Decimal) -> Decimal | None:
    if amount is None:
        return None
    if not gpus:
        return Decimal(0)
    return amount * per_node / gpus  # multiply first: 3 x 100 / 3 stays exactly 100


def scaled_quota(pool: Pool, quota: PoolQuota) -> dict[str, Amounts]:
    """A pool quota as per-resource amounts, keyed in :func:`resource_order` (do not modify the result)."""
    return _scaled(pool.gpu_resource, tuple(pool.allocatable.items()), quota.nominal, quota.borrowing_limit,
                   quota.lending_limit, tuple(quota.resources.items()))


@lru_cache(maxsize=4096)
def _scaled(gpu_resource: str, allocatable: tuple[tuple[str, Decimal], ...], nominal: Decimal, borrowing: Decimal | None,
            lending: Decimal | None, overrides: tuple[tuple[str, ResourceQuota], ...]) -> dict[str, Amounts]:
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
                _scale(nominal, shape, gpus) or Decimal(0),
                _scale(borrowing, shape, gpus),
                _scale(lending, shape, gpus),
            )
    return out
