"""Names: duplicates, the Volcano queue namespace, reserved names.

Pools become ResourceFlavors, teams ClusterQueues and Volcano leaf queues, cohorts
Kueue Cohorts and Volcano parent queues, priority classes PriorityClasses and
WorkloadPriorityClasses: a duplicate in any list would make two model entries write
one object. Teams and cohorts share Volcano's queue namespace, where ``root`` and
``default`` already exist (the scheduler creates them). Registered in ``CHECKS``.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.fleet import Fleet
from gpufleet.yamlin.errors import Issue

RESERVED_QUEUES = ("root", "default")


def _duplicates(section: str, names: list[str]) -> Iterator[Issue]:
    first: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in first:
            yield Issue(
                FieldPath.of(section, i, "name"),
                f"duplicate name {name!r}: {section}[{first[name]}] already uses it",
                "give every entry of the list its own name",
            )
        else:
            first[name] = i


def _reserved(fleet: Fleet) -> Iterator[Issue]:
    for section, items in fleet.sections():
        for i, item in enumerate(items):
            if item.name in RESERVED_QUEUES:
                yield Issue(
                    FieldPath.of(section, i, "name"),
                    f"{item.name!r} is a Volcano queue the scheduler creates itself (root and default are reserved)",
                    "choose another name",
                )


def _team_cohort_clash(fleet: Fleet) -> Iterator[Issue]:
    cohorts = {c.name: i for i, c in enumerate(fleet.cohorts)}
    for i, team in enumerate(fleet.teams):
        if team.name in cohorts:
            yield Issue(
                FieldPath.of("teams", i, "name"),
                f"team {team.name!r} has the name of cohorts[{cohorts[team.name]}]; teams and cohorts share Volcano's queue names",
                "rename the team or the cohort",
            )


def _priority_names(fleet: Fleet) -> Iterator[Issue]:
    for i, pc in enumerate(fleet.priority_classes):
        if pc.name.startswith("system-"):
            yield Issue(
                FieldPath.of("priorityClasses", i, "name"),
                f"{pc.name!r}: Kubernetes reserves the 'system-' prefix for its own PriorityClasses",
                "choose a name without the 'system-' prefix",
            )


def check(fleet: Fleet) -> Iterable[Issue]:
    yield from _duplicates("pools", [p.name for p in fleet.pools])
    yield from _duplicates("teams", [t.name for t in fleet.teams])
    yield from _duplicates("cohorts", [c.name for c in fleet.cohorts])
    yield from _duplicates("priorityClasses", [p.name for p in fleet.priority_classes])
    yield from _reserved(fleet)
    yield from _team_cohort_clash(fleet)
    yield from _priority_names(fleet)
