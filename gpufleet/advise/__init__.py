"""``gpufleet advise``: which of the premise's mechanisms (and Kubernetes' own gang scheduling) each pool should use, and why.

Pure: a validated fleet model and, optionally, workload objects in; plain data out
(:class:`Advice`); nothing is written. Called by ``gpufleet.cli.advise_cmds``. The
decision table and the four questions are documented in :mod:`gpufleet.advise.decide`;
how jobs are placed on pools in :mod:`gpufleet.advise.jobs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Iterable, Mapping

from gpufleet.advise.decide import FREE_FRACTION, SMALL_POOL, change, control_plane, decide, facts
from gpufleet.advise.jobs import collect
from gpufleet.advise.topology import propose
from gpufleet.kubetypes.quantity import json_number
from gpufleet.model.fleet import Fleet
from gpufleet.util.camel import camel_dict

SWITCH_NOTE = (
    " Teams hold quota on it, so the system cannot switch in one `pulumi up`: their quota objects on the old "
    "system are protected (`gpufleet diff` shows the blocked deletes): drain the teams' work, "
    "retire them and re-add them under new names (docs/retiring-a-team.md, docs/diff.md)."
)


@dataclass(frozen=True)
class PoolAdvice:
    pool: str
    current: str
    """What the model does now: ``kueue``, ``kueue+tas``, ``kueue+native``, ``volcano``, ``coscheduling``, ``native`` or ``static``."""
    mechanism: str
    change: str
    reason: str
    contention: str
    """Q1: ``contention`` (several teams) or ``fragmentation`` (one team), or ``unused``."""
    largest_job_gpus: Decimal
    free_block_gpus: Decimal
    elastic_jobs: list[str]
    control_plane: str

    def to_json(self) -> dict[str, Any]:
        """``gpufleet advise --format json``'s pool: camelCase keys, GPU counts as numbers (docs/schemas/advise.schema.json)."""
        return {k: json_number(v) if isinstance(v, Decimal) else v for k, v in camel_dict(self).items()}


@dataclass(frozen=True)
class Advice:
    fleet: str
    pools: list[PoolAdvice]
    jobs: int
    skipped: int

    def to_json(self) -> dict[str, Any]:
        return {
            "fleet": self.fleet,
            "jobs": self.jobs,
            "skipped": self.skipped,
            "pools": [p.to_json() for p in self.pools],
        }


def _current(pool) -> str:
    if pool.dedicated_to:
        return "static"
    if pool.system == "kueue" and pool.topology_levels:
        return "kueue+tas"
    if pool.system == "kueue" and pool.placement == "native":
        return "kueue+native"
    return pool.system


def advise(
    fleet: Fleet,
    objects: Iterable[Mapping[str, Any]] = (),
    free_fraction: Decimal = FREE_FRACTION,
    small_pool: Decimal = SMALL_POOL,
) -> Advice:
    jobs, skipped = collect(fleet, objects)
    out = []
    for i, pool in enumerate(fleet.pools):
        f = facts(fleet, pool, jobs, free_fraction)
        mechanism, reason = decide(fleet, pool, f, small_pool)
        shared = len(f.teams) > 1 or f.cohort_quota
        edit = change(fleet, i, pool, mechanism)
        if f.teams and f"pools[{i}].system:" in edit:
            reason += SWITCH_NOTE
        if f"pools[{i}].topologyLevels:" in edit:
            reason += " topologyLevels: " + propose(pool).note
        out.append(
            PoolAdvice(
                pool=pool.name,
                current=_current(pool),
                mechanism=mechanism,
                change=edit,
                reason=reason,
                contention="contention" if shared else "fragmentation" if f.teams else "unused",
                largest_job_gpus=f.largest_job,
                free_block_gpus=f.free_block,
                elastic_jobs=list(f.elastic_jobs),
                control_plane=control_plane(fleet, mechanism),
            )
        )
    return Advice(fleet.name, out, len(jobs), skipped)
