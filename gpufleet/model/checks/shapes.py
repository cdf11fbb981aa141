"""Derived views of a fleet that several checks share: per-resource quota, cohort chains.

Team and cohort quota is written in GPUs of a pool; every other resource of the pool
follows the node shape (``nominal_cpu = nominal_gpus × cpu_per_node / gpus_per_node``)
unless ``quota.<pool>.resources.<res>`` overrides it. :func:`expand` computes the
per-resource amounts and the exact model path each one comes from, so the capacity,
Kueue and Volcano checks report at the field a user has to edit. Used only inside
:mod:`gpufleet.model.checks` (the renderers derive the same numbers from the same rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Iterator

from gpufleet.kubetypes import quantity
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.model.quota import PoolQuota

LIMITS = ("nominal", "borrowingLimit", "lendingLimit")


@dataclass(frozen=True)
class Amount:
    """One resource of one quota entry: the three numbers and the path of each."""

    resource: str
    nominal: Decimal
    borrowing: Decimal | None
    lending: Decimal | None
    base: FieldPath
    """Path of the entry that sets these numbers (the pool entry, or its ``resources.<res>`` override)."""

    def path(self, field: str) -> FieldPath:
        return self.base.child(field)


@dataclass(frozen=True)
class Owner:
    """A team or a cohort, with its place in the model."""

    kind: str  # "teams" or "cohorts"
    index: int
    name: str
    quota: dict[str, PoolQuota]

    @property
    def path(self) -> FieldPath:
        return FieldPath.of(self.kind, self.index)

    def quota_path(self, *rest: str) -> FieldPath:
        return FieldPath.of(self.kind, self.index, "quota", *rest)


def show(value: Decimal | None, resource: str) -> str:
    """A quantity as a user would write it (binary suffixes for memory)."""
    return "unset" if value is None else quantity.fmt(value, binary="memory" in resource)


def owners(fleet: Fleet) -> Iterator[Owner]:
    for i, team in enumerate(fleet.teams):
        yield Owner("teams", i, team.name, team.quota)
    for i, cohort in enumerate(fleet.cohorts):
        yield Owner("cohorts", i, cohort.name, cohort.quota)


def pool_resources(pool: Pool) -> list[str]:
    """The pool's resources, quota resource first, then the rest in allocatable order."""
    return [pool.gpu_resource] + [r for r in pool.allocatable if r != pool.gpu_resource]


def _scale(amount: Decimal | None, ratio: Decimal) -> Decimal | None:
    return None if amount is None else amount * ratio


def expand(owner: Owner, pool: Pool, entry: PoolQuota) -> list[Amount]:
    """Per-resource amounts of one quota entry on one pool (overrides win, the rest scale)."""
    base = owner.quota_path(pool.name)
    amounts = [Amount(pool.gpu_resource, entry.nominal, entry.borrowing_limit, entry.lending_limit, base)]
    gpus = pool.gpus_per_node
    for res in pool_resources(pool)[1:]:
        if res in entry.resources:
            r = entry.resources[res]
            amounts.append(Amount(res, r.nominal, r.borrowing_limit, r.lending_limit, base + FieldPath.of("resources", res)))
        elif gpus > 0:
            ratio = pool.per_node(res) / gpus
            amounts.append(Amount(res, entry.nominal * ratio, _scale(entry.borrowing_limit, ratio), _scale(entry.lending_limit, ratio), base))
    return amounts


def parent_chain(fleet: Fleet, cohort: str | None) -> list[str] | None:
    """Cohort names from ``cohort`` up to its root; None when the chain is dangling or cyclic."""
    names = {c.name: c for c in fleet.cohorts}
    chain: list[str] = []
    while cohort is not None:
        if cohort not in names or cohort in chain:
            return None
        chain.append(cohort)
        cohort = names[cohort].parent
    return chain


def kueue_covered_resources(fleet: Fleet) -> list[str]:
    """The renderer's single resource group: the union of all Kueue pools' resources, in first-seen order."""
    seen: dict[str, None] = {}
    for pool in fleet.pools_of("kueue"):
        for res in pool_resources(pool):
            seen.setdefault(res)
    return list(seen)
