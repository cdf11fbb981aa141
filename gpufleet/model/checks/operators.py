"""The workload operators' gang schedulers (``workloadOperators``).

An operator can only write PodGroups for the engines it supports, and only for an engine the
fleet runs: a ``gangScheduler`` naming Volcano in a fleet without Volcano pools (or with Volcano
disabled), or scheduler-plugins without a coscheduling pool, makes PodGroups no scheduler reads,
and the job's pods wait for ever. This check rejects:

- ``gangScheduler`` on JobSet or Trainer (neither has an operator-wide one);
- ``scheduler-plugins`` for LeaderWorkerSet (its ``schedulerProvider`` knows only volcano at v0.9.0);
- ``volcano`` without a Volcano pool, or with ``engines.volcano.enabled: false``;
- ``scheduler-plugins`` without a coscheduling pool.

Registered in ``CHECKS``.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.fleet import Fleet
from gpufleet.model.operators import GANG_SCHEDULERS, GANG_SETTING
from gpufleet.yamlin.errors import Issue

ENGINE_POOLS = {"volcano": "volcano", "scheduler-plugins": "coscheduling"}


def _gang_schedulers(fleet: Fleet) -> Iterator[Issue]:
    for key, settings in fleet.workload_operators.declared().items():
        chosen = settings.gang_scheduler
        if chosen is None:
            continue
        path = FieldPath.of("workloadOperators", key, "gangScheduler")
        allowed = GANG_SCHEDULERS[key]
        if chosen not in allowed:
            yield Issue(
                path,
                f"{key} cannot write PodGroups for {chosen} "
                f"({GANG_SETTING[key]}{'; it supports ' + ', '.join(allowed) if allowed else ''})",
                f"set gangScheduler: {allowed[0]}" if allowed else "remove gangScheduler",
            )
            continue
        system = ENGINE_POOLS[chosen]
        if not fleet.pools_of(system) or (chosen == "volcano" and not fleet.engines.volcano.enabled):
            yield Issue(
                path,
                f"{key} would write PodGroups for {chosen}, but the fleet has no {system} pool for it to place them",
                f"add a pool with system: {system}, or remove gangScheduler",
            )


def check(fleet: Fleet) -> Iterable[Issue]:
    return list(_gang_schedulers(fleet))
