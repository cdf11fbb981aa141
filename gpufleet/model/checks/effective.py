"""Settings that would do nothing on the engine are rejected, each with the setting that does.

- Volcano ``preempt`` and ``reclaim`` skip preemptors whose pod has
  ``preemptionPolicy: Never`` (``pkg/scheduler/actions/preempt/preempt.go`` line 433,
  ``pkg/scheduler/actions/reclaim/reclaim.go`` line 144, volcano v1.15.1), and every
  PriorityClass gpufleet renders is ``Never`` (per-pod preemption breaks gangs); the
  gang-aware ``gangpreempt``/``gangreclaim`` do not make that check.
- ``fairShareWeight`` is read by Kueue only under fair sharing (``admission.fairSharing``)
  and by Volcano only as a leaf queue's ``weight`` under the ``proportion`` plugin (the
  ``capacity`` plugin never reads ``weight``, ``pkg/scheduler/plugins/capacity/capacity.go``;
  proportion has no parent queues). A weight other than 1 that neither engine reads is
  rejected, for teams and cohorts.

Registered in ``CHECKS``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.fleet import Fleet
from gpufleet.model.ownership import KUEUE, VOLCANO, quota_systems
from gpufleet.model.teams import Cohort, Team
from gpufleet.yamlin.errors import Issue

GANG_AWARE = {"preempt": "gangpreempt", "reclaim": "gangreclaim"}


def _never_preemptors(fleet: Fleet) -> Iterator[Issue]:
    classes = fleet.priority_classes
    if not classes or any(pc.preemption_policy != "Never" for pc in classes):
        return
    for a, action in enumerate(fleet.volcano.actions):
        if action in GANG_AWARE:
            yield Issue(
                FieldPath.of("volcano", "actions", a),
                f"Volcano's {action} action skips preemptors with preemptionPolicy: Never, "
                "and every priority class of this fleet is Never: it would never evict anything",
                f"use {GANG_AWARE[action]} (whole-job eviction, no such check) instead of {action}",
            )


def _systems(fleet: Fleet, owner: Team | Cohort) -> set[str]:
    """Quota systems of the owner's own quota and, for a cohort, of its member teams' (its subtree's)."""
    if isinstance(owner, Team):
        return quota_systems(fleet, owner)
    found: set[str] = {p.system for name in owner.quota if (p := fleet.pool(name)) is not None}
    for team in fleet.teams:
        if team.cohort == owner.name:
            found |= quota_systems(fleet, team)
    for child in fleet.cohorts:
        if child.parent == owner.name and child.name != owner.name:
            found |= _systems(fleet, child)
    return found


def _weight_readers(fleet: Fleet, systems: set[str], leaf: bool) -> bool:
    kueue_reads = KUEUE in systems and fleet.admission.fair_sharing is not None
    volcano_reads = leaf and VOLCANO in systems and fleet.volcano.plugin == "proportion"
    return kueue_reads or volcano_reads


def _unread_weights(fleet: Fleet) -> Iterator[Issue]:
    owners = [("teams", i, o, True) for i, o in enumerate(fleet.teams)] + [
        ("cohorts", i, o, False) for i, o in enumerate(fleet.cohorts)
    ]
    for section, i, owner, leaf in owners:
        if owner.fair_share_weight == Decimal(1) or _weight_readers(fleet, _systems(fleet, owner), leaf):
            continue
        yield Issue(
            FieldPath.of(section, i, "fairShareWeight"),
            f"{section[:-1]} {owner.name!r}: no engine reads this weight (Kueue only under admission.fairSharing, "
            "Volcano only for team queues under the proportion plugin; capacity never reads a queue weight)",
            "remove fairShareWeight and size the share by quota, or turn on admission.fairSharing (Kueue quota)",
        )


def check(fleet: Fleet) -> Iterable[Issue]:
    yield from _never_preemptors(fleet)
    yield from _unread_weights(fleet)
