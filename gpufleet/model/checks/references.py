"""References between model entries: quota pools, team cohorts, cohort parents, cycles.

Kueue accepts a ClusterQueue naming a missing flavor (it stays inactive), a cohort
name with no Cohort object (an implicit cohort) and cohort cycles (which disable the
whole tree at run time); Volcano rejects a queue whose parent does not exist yet.
The model rejects all of them up front. A team with no quota at all is rejected too
unless it is draining or retired: its ClusterQueue would have no flavors and admit
nothing. A name that is not known but close to one that is gets a ``did you mean``, as an
unknown field does. Registered in ``CHECKS``.
"""

from __future__ import annotations

import difflib
from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.checks.shapes import every, owners
from gpufleet.model.fleet import Fleet
from gpufleet.yamlin.errors import Issue


def nearest(name: str, known: Iterable[str]) -> str | None:
    """The known name a typo of ``name`` most likely meant (as unknown fields get: ``did you mean``), or None."""
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    return close[0] if close else None


def _unknown_pools(fleet: Fleet) -> Iterator[Issue]:
    pools = {p.name for p in fleet.pools}
    known = ", ".join(sorted(pools))
    for owner in owners(fleet):
        for pool in owner.quota:
            if pool not in pools:
                near = nearest(pool, pools)
                yield Issue(
                    owner.quota_path(pool),
                    f"quota names pool {pool!r}, which is not in pools (known: {known})"
                    + (f"; did you mean {near!r}?" if near else ""),
                    f"rename it to {near}, or add the pool {pool} to pools"
                    if near
                    else "correct the pool name or add the pool to pools",
                )


def _dangling(fleet: Fleet) -> Iterator[Issue]:
    cohorts = {c.name for c in fleet.cohorts}
    for i, team in enumerate(fleet.teams):
        at = FieldPath.of("teams", i, "cohort")
        yield from _unknown(cohorts, at, team.cohort, "cohort", "add the cohort to cohorts or correct the name")
    for i, cohort in enumerate(fleet.cohorts):
        at = FieldPath.of("cohorts", i, "parent")
        fix = "add the parent to cohorts, correct the name, or remove parent to make this a root cohort"
        yield from _unknown(cohorts, at, cohort.parent, "parent cohort", fix)


def _unknown(cohorts: set[str], at: FieldPath, name: str | None, what: str, fix: str) -> Iterator[Issue]:
    """The issue at ``at`` when it names a cohort (``what``: "cohort", "parent cohort") that ``cohorts`` lacks."""
    if name is not None and name not in cohorts:
        near = nearest(name, cohorts)
        if near is None:
            yield Issue(at, f"{what} {name!r} is not in cohorts", fix)
        else:
            yield Issue(
                at,
                f"{what} {name!r} is not in cohorts; did you mean {near!r}?",
                f"rename it to {near}, or add {what} {name!r} to cohorts",
            )


def cycles(fleet: Fleet) -> list[list[int]]:
    """Each cohort cycle once, as indexes into ``fleet.cohorts`` in parent order."""
    index = {c.name: i for i, c in enumerate(fleet.cohorts)}
    found: list[list[int]] = []
    done: set[int] = set()
    for start in range(len(fleet.cohorts)):
        walk: list[int] = []
        i: int | None = start
        while i is not None and i not in done and i not in walk:
            walk.append(i)
            parent = fleet.cohorts[i].parent
            i = index.get(parent) if parent is not None else None
        if i is not None and i in walk:
            found.append(walk[walk.index(i) :])
        done.update(walk)
    return found


def _cycles(fleet: Fleet) -> Iterator[Issue]:
    for cycle in cycles(fleet):
        first = min(cycle)
        names = [fleet.cohorts[i].name for i in cycle]
        at = cycle.index(first)
        ring = " -> ".join(names[at:] + names[:at] + [names[at]])
        yield Issue(
            FieldPath.of("cohorts", first, "parent"),
            f"cohort cycle {ring}: Kueue disables every cohort and ClusterQueue in a cycle",
            "remove parent from one cohort of the cycle",
        )


def _no_quota(fleet: Fleet) -> Iterator[Issue]:
    for i, team in enumerate(fleet.teams):
        if not team.quota and team.lifecycle == "active":
            yield Issue(
                FieldPath.of("teams", i, "quota"),
                f"team {team.name!r} has no quota: its ClusterQueue would admit nothing",
                "give it quota on at least one pool (nominal: 0 with a cohort makes a pure borrower), or set lifecycle: draining or retired",
            )


def check(fleet: Fleet) -> Iterable[Issue]:
    return every(fleet, _unknown_pools, _dangling, _cycles, _no_quota)
