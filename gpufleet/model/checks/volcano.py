"""Volcano scheduler settings checked against the queues the fleet renders.

- actions must be Volcano 1.15 actions, each once (an invalid conf is logged and the
  previous one silently kept), and include ``allocate`` (the only action that binds pods);
- ``overcommitFactor`` must be 1.0 when the fleet has Volcano pools: above 1 enqueue
  admits gangs the GPUs cannot hold, and below 1 Volcano reverts to 1.2;
- ``proportion`` ignores ``parent``, so teams with Volcano quota inside cohorts would
  lose their cohort boundaries. Registered in ``CHECKS``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.checks.choices import known_once
from gpufleet.model.checks.shapes import every
from gpufleet.model.fleet import Fleet
from gpufleet.model.volcano import VOLCANO_ACTIONS
from gpufleet.yamlin.errors import Issue


def _actions(fleet: Fleet) -> Iterator[Issue]:
    yield from known_once(fleet.volcano.actions, VOLCANO_ACTIONS, "volcano", "actions", "Volcano", "action")
    if "allocate" not in fleet.volcano.actions:
        yield Issue(
            FieldPath.of("volcano", "actions"),
            f"the actions {fleet.volcano.actions} have no 'allocate': Volcano would bind no pod at all",
            "list allocate after enqueue, for example [enqueue, allocate, gangreclaim, backfill]",
        )


def _overcommit(fleet: Fleet) -> Iterator[Issue]:
    if fleet.pools_of("volcano") and fleet.volcano.overcommit_factor != Decimal(1):
        yield Issue(
            FieldPath.of("volcano", "overcommitFactor"),
            f"overcommitFactor {fleet.volcano.overcommit_factor} on a fleet with Volcano GPU pools: enqueue would admit gangs the GPUs cannot hold",
            "set overcommitFactor: 1.0",
        )


def _proportion(fleet: Fleet) -> Iterator[Issue]:
    if fleet.volcano.plugin != "proportion":
        return
    volcano = {p.name for p in fleet.pools_of("volcano")}
    nested = [t.name for t in fleet.teams if t.cohort and volcano & set(t.quota)]
    if nested:
        yield Issue(
            FieldPath.of("volcano", "plugin"),
            f"the proportion plugin ignores queue parents, but teams {', '.join(nested)} have Volcano quota inside cohorts",
            "use plugin: capacity (hierarchical deserved/capability), or take those teams out of their cohorts",
        )


def check(fleet: Fleet) -> Iterable[Issue]:
    return every(fleet, _actions, _overcommit, _proportion)
