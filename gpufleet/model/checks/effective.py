"""Settings that would do nothing on the engine are rejected, each with the setting that does.

- Volcano ``preempt`` and ``reclaim`` skip preemptors whose pod has
  ``preemptionPolicy: Never`` (``pkg/scheduler/actions/preempt/preempt.go`` line 433,
  ``pkg/scheduler/actions/reclaim/reclaim.go`` line 144, volcano v1.15.1), and every
  PriorityClass gpufleet renders is ``Never`` (per-pod preemption breaks gangs); the
  gang-aware ``gangpreempt``/``gangreclaim`` do not make that check.
- The ``capacity`` plugin never reads a queue's ``weight``
  (``pkg/scheduler/plugins/capacity/capacity.go``): a Volcano-only team's
  ``fairShareWeight`` other than 1 would be silently ignored (a team with Kueue quota
  keeps it: Kueue's fair sharing reads it).

Registered in ``CHECKS``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Iterable, Iterator

from gpufleet.errors import Issue, join_path
from gpufleet.model.fleet import Fleet
from gpufleet.model.ownership import VOLCANO, quota_systems

GANG_AWARE = {"preempt": "gangpreempt", "reclaim": "gangreclaim"}


def _never_preemptors(fleet: Fleet) -> Iterator[Issue]:
    classes = fleet.priority_classes
    if not classes or any(pc.preemption_policy != "Never" for pc in classes):
        return
    for a, action in enumerate(fleet.volcano.actions):
        if action in GANG_AWARE:
            yield Issue(join_path("volcano", "actions", a),
                        f"Volcano's {action} action skips preemptors with preemptionPolicy: Never, "
                        "and every priority class of this fleet is Never: it would never evict anything",
                        f"use {GANG_AWARE[action]} (whole-job eviction, no such check) instead of {action}")


def _capacity_weight(fleet: Fleet) -> Iterator[Issue]:
    if fleet.volcano.plugin != "capacity":
        return
    for t, team in enumerate(fleet.teams):
        if quota_systems(fleet, team) == {VOLCANO} and team.fair_share_weight != Decimal(1):
            yield Issue(join_path("teams", t, "fairShareWeight"),
                        f"team {team.name!r} has only Volcano quota and the capacity plugin never reads a queue weight",
                        "remove fairShareWeight and size the team by its quota (deserved), or use volcano.plugin: proportion")


def check(fleet: Fleet) -> Iterable[Issue]:
    yield from _never_preemptors(fleet)
    yield from _capacity_weight(fleet)
