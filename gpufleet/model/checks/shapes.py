"""What several checks share: derived views of a fleet (per-resource quota, cohort chains) and one check made of several.

Team and cohort quota is written in GPUs of a pool; every other resource of the pool
follows the node shape (``nominal_cpu = nominal_gpus × cpu_per_node / gpus_per_node``)
unless ``quota.<pool>.resources.<res>`` overrides it. :func:`expand` computes the
per-resource amounts (:mod:`gpufleet.model.scaling`, the renderers' own numbers) and the
exact model path each one comes from, so the capacity, Kueue and Volcano checks report at
the field a user has to edit. A module whose ``check`` only runs its parts in turn returns
``every(fleet, ...)``. Used only inside :mod:`gpufleet.model.checks`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Callable, Iterable, Iterator

from gpufleet.kubetypes import quantity
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.model.quota import PoolQuota
from gpufleet.model.scaling import quota_first, scaled_quota
from gpufleet.yamlin.errors import Issue

LIMITS = ("nominal", "borrowingLimit", "lendingLimit")


def every(fleet: Fleet, *checks: Callable[[Fleet], Iterable[Issue]]) -> Iterator[Issue]:
    """The issues ``checks`` find in ``fleet``, check by check: the ``check`` of a module made of several."""
    for part in checks:
        yield from part(fleet)


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


def expand(owner: Owner, pool: Pool, entry: PoolQuota) -> list[Amount]:
    """Per-resource amounts of one quota entry on one pool (overrides win, the rest scale), quota resource first.

    The numbers are :func:`gpufleet.model.scaling.scaled_quota`'s, the ones the renderers write;
    a pool without GPUs per node derives nothing."""
    base = owner.quota_path(pool.name)
    amounts = scaled_quota(pool, entry)
    out = []
    for res in quota_first(pool):
        if res in entry.resources:
            at = base + FieldPath.of("resources", res)
        elif res == pool.gpu_resource or pool.gpus_per_node > 0:
            at = base
        else:
            continue
        a = amounts[res]
        out.append(Amount(res, a.nominal, a.borrowing_limit, a.lending_limit, at))
    return out


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
