"""Borrowing and lending limits, negative quantities and per-resource overrides.

Kueue's webhooks reject negative quantities, ``borrowingLimit``/``lendingLimit`` on a
ClusterQueue without a cohort or on a Cohort without a parent, and ``lendingLimit``
above ``nominalQuota``; Volcano rejects the negative guarantee and a capability below
deserved that the same mistakes would render. A cohort's lendingLimit caps what its
whole subtree lends, so it is compared with the subtree's nominal quota. Overrides
under ``resources`` must name another resource the pool really has. Registered in ``CHECKS``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Iterable, Iterator

from gpufleet.kubetypes import quantity
from gpufleet.model.checks.shapes import Owner, expand, owners, parent_chain, show
from gpufleet.model.fleet import Fleet
from gpufleet.model.quota import PoolQuota, ResourceQuota
from gpufleet.yamlin.errors import Issue

_FIELDS = (("nominal", "nominal"), ("borrowingLimit", "borrowing_limit"), ("lendingLimit", "lending_limit"))


def _negatives(base: list[str], q: PoolQuota | ResourceQuota, owner: Owner) -> Iterator[Issue]:
    for alias, attr in _FIELDS:
        value = getattr(q, attr)
        if value is not None and value < 0:
            yield Issue(
                owner.quota_path(*base, alias), f"{alias} is negative ({quantity.fmt(value)})", "use zero or more"
            )


def _needs_parent(fleet: Fleet, owner: Owner) -> str | None:
    """Why limits are not allowed on this owner, or None when they are."""
    if owner.kind == "teams":
        return (
            None
            if fleet.teams[owner.index].cohort
            else f"borrowing and lending need a cohort, and team {owner.name!r} has none"
        )
    return (
        None
        if fleet.cohorts[owner.index].parent
        else f"a root cohort has no parent to borrow from or lend to ({owner.name!r} has no parent)"
    )


def _orphan_limits(base: list[str], q: PoolQuota | ResourceQuota, owner: Owner, why: str) -> Iterator[Issue]:
    fix = (
        "set cohort: on the team, or remove the limit"
        if owner.kind == "teams"
        else "set parent: on the cohort, or remove the limit"
    )
    for alias, attr in _FIELDS[1:]:
        if getattr(q, attr) is not None:
            yield Issue(
                owner.quota_path(*base, alias),
                f"{alias} without a {'cohort' if owner.kind == 'teams' else 'parent'}: {why}",
                fix,
            )


def _subtree_nominal(fleet: Fleet, cohort: str, pool_name: str) -> dict[str, Decimal]:
    """Per-resource nominal quota of a cohort and everything below it, on one pool."""
    pool = fleet.pool(pool_name)
    total: dict[str, Decimal] = {}
    for owner in owners(fleet):
        start = fleet.teams[owner.index].cohort if owner.kind == "teams" else owner.name
        chain = parent_chain(fleet, start) or []
        if cohort in chain and pool_name in owner.quota and pool is not None:
            for amount in expand(owner, pool, owner.quota[pool_name]):
                total[amount.resource] = total.get(amount.resource, Decimal(0)) + amount.nominal
    return total


def _lending_above_nominal(fleet: Fleet, owner: Owner, pool_name: str) -> Iterator[Issue]:
    pool = fleet.pool(pool_name)
    if pool is None:
        return
    subtree = _subtree_nominal(fleet, owner.name, pool_name) if owner.kind == "cohorts" else {}
    written = {pool.gpu_resource, *owner.quota[pool_name].resources}  # derived amounts follow the GPU entry
    for amount in expand(owner, pool, owner.quota[pool_name]):
        if amount.lending is None or amount.resource not in written:
            continue
        limit = subtree.get(amount.resource, amount.nominal) if owner.kind == "cohorts" else amount.nominal
        if amount.lending > limit:
            what = "the nominal quota of the cohort and its members" if owner.kind == "cohorts" else "nominal"
            res = amount.resource
            yield Issue(
                amount.path("lendingLimit"),
                f"lendingLimit {show(amount.lending, res)} exceeds {what} ({show(limit, res)}) for {res}",
                f"set lendingLimit at most {show(limit, res)}",
            )


def _overrides(fleet: Fleet, owner: Owner, pool_name: str) -> Iterator[Issue]:
    pool = fleet.pool(pool_name)
    if pool is None:
        return
    for res in owner.quota[pool_name].resources:
        path = owner.quota_path(pool_name, "resources", res)
        if res == pool.gpu_resource:
            yield Issue(
                path,
                f"{res} is the pool's quota resource; its quota is the entry's own nominal/borrowingLimit/lendingLimit",
                "move these numbers to the pool entry and remove the override",
            )
        elif res not in pool.allocatable:
            yield Issue(
                path,
                f"pool {pool_name!r} has no {res!r} (allocatable: {', '.join(pool.allocatable)})",
                "remove the override or add the resource to the pool's allocatable",
            )


def check(fleet: Fleet) -> Iterable[Issue]:
    for owner in owners(fleet):
        why = _needs_parent(fleet, owner)
        for pool_name, entry in owner.quota.items():
            parts = [([pool_name], entry)] + [([pool_name, "resources", r], q) for r, q in entry.resources.items()]
            for base, q in parts:
                yield from _negatives(base, q, owner)
                if why:
                    yield from _orphan_limits(base, q, owner, why)
            yield from _lending_above_nominal(fleet, owner, pool_name)
            yield from _overrides(fleet, owner, pool_name)
