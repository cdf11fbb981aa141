"""The pods a gang needs to start, per GPU resource: shared by GANG403 (against the pools) and GANG406 (against quota).

Built from the object's :class:`~gpufleet.rules.run.TemplateDemand` records
(:func:`gpufleet.rules.demands.demands`): each pod template's per-pod GPUs and candidate pools.
:func:`minimum_pods` takes the gang's minimum from the pods with the fewest GPUs, so what a rule
compares is a lower bound on what the gang needs (a finding is certain, never a guess).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Mapping

from gpufleet.fleetctx.context import PoolContext
from gpufleet.rules.gpumath import ZERO
from gpufleet.rules.run import TemplateDemand
from gpufleet.util.quickinit import quick_init
from gpufleet.workloads import PodTemplate, WorkloadView


@quick_init
@dataclass(frozen=True)
class Group:
    """``count`` pods of one template needing ``gpus`` each, and the pools they may use."""

    template: PodTemplate
    gpus: Decimal
    count: int
    pools: tuple[PoolContext, ...]


def gang_groups(found: WorkloadView, resource: str, table: Mapping[int, TemplateDemand]) -> list[Group]:
    """The pods of each template as groups; none when no pod asks for ``resource`` (nothing to check)."""
    requests, asks = [], False
    for t in found.templates:
        if t.replicas > 0:
            gpus = table[id(t)].requests.get(resource, ZERO)
            asks = asks or gpus > 0
            requests.append((t, gpus))
    if not asks:
        return []  # minimum_pods keeps only pods with GPUs: skip finding their pools
    return [Group(t, gpus, t.replicas, table[id(t)].pools) for t, gpus in requests]


def minimum_pods(groups: list[Group], gang_min: int | None) -> list[Group]:
    """The gang's minimum as groups, taking pods with the fewest GPUs first (a lower bound)."""
    total = sum(g.count for g in groups)
    need = total if gang_min is None or gang_min <= 0 or gang_min > total else gang_min
    chosen = []
    for group in sorted(groups, key=_gpus):
        take = min(group.count, need)
        if take > 0 and group.gpus > 0:
            chosen.append(group if take == group.count else Group(group.template, group.gpus, take, group.pools))
        need -= take
    return chosen


def _gpus(group: Group) -> Decimal:
    return group.gpus
