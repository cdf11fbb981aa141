"""The cohort tree as the renderers need it: depth, parents-first order, members per engine.

Kueue Cohorts and Volcano parent queues are both rendered from the model's cohorts,
parents before children (Volcano's webhook rejects a queue whose parent does not exist
yet). A cohort is rendered for an engine only when its subtree holds quota on that
engine's pools, so a Volcano-only cohort gets no Kueue Cohort and vice versa. Called
by ``gpufleet.render.kueue``, ``gpufleet.render.volcano`` and the plan.
"""

from __future__ import annotations

from typing import Any

from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.model.quota import PoolQuota
from gpufleet.model.teams import Cohort, Team


def depths(fleet: Fleet) -> dict[str, int]:
    """Depth of every cohort (0 = root). A cycle (rejected by validation) stops the walk."""
    parent = {c.name: c.parent for c in fleet.cohorts}
    out: dict[str, int] = {}
    for name in parent:
        depth, seen, cur = 0, {name}, parent[name]
        while cur is not None and cur in parent and cur not in seen:
            seen.add(cur)
            depth += 1
            cur = parent[cur]
        out[name] = depth
    return out


def system_quota(fleet: Fleet, owner: Team | Cohort, system: str) -> dict[str, Any]:
    """The owner's quota on pools of one system, in fleet pool order."""
    quota = owner.quota
    return {name: quota[name] for name in fleet.pool_names_by_system.get(system, ()) if name in quota}


def system_pools(fleet: Fleet, owner: Team | Cohort, system: str) -> list[tuple[Pool, PoolQuota]]:
    """:func:`system_quota` with each pool itself: ``(pool, the owner's quota on it)``."""
    return [(pool, owner.quota[pool.name]) for pool in fleet.pools_of(system) if pool.name in owner.quota]


def cohorts_for(fleet: Fleet, system: str) -> list[Cohort]:
    """Cohorts whose subtree holds quota on ``system`` pools, parents first, then model order."""
    by_name = {c.name: c for c in fleet.cohorts}
    used: set[str] = set()

    def mark(name: str | None) -> None:
        while name is not None and name in by_name and name not in used:
            used.add(name)
            name = by_name[name].parent

    for cohort in fleet.cohorts:
        if system_quota(fleet, cohort, system):
            mark(cohort.name)
    for team in fleet.teams:
        if team.cohort and system_quota(fleet, team, system):
            mark(team.cohort)
    depth = depths(fleet)
    order = {c.name: i for i, c in enumerate(fleet.cohorts)}
    chosen = [c for c in fleet.cohorts if c.name in used]
    return sorted(chosen, key=lambda c: (depth[c.name], order[c.name]))


def protected_cohorts(fleet: Fleet) -> set[str]:
    """Cohorts with an active or draining team in their subtree (their objects may hold admitted work)."""
    by_name = {c.name: c for c in fleet.cohorts}
    out: set[str] = set()
    for team in fleet.teams:
        if team.lifecycle == "retired":
            continue
        name = team.cohort
        while name is not None and name in by_name and name not in out:
            out.add(name)
            name = by_name[name].parent
    return out
