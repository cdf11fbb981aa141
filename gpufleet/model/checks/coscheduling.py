"""Pools held by the coscheduling plugin (``system: coscheduling``).

scheduler-plugins' Coscheduling plugin has no queues and no quota (peers.md §3): the
gang unit is a PodGroup, and capacity is whatever the pool's nodes have. gpufleet
therefore gives such a pool to exactly one team, whose namespaces the admission
controller routes to the second scheduler. This check rejects:

- quota of a second team, or of a cohort, on the pool (no sharing between teams);
- ``borrowingLimit``/``lendingLimit`` on it (the mechanism cannot borrow or lend);
- quota of the owning team on other pools (its namespaces all go to the second
  scheduler, so that quota would never be used);
- a pool without ``nodeLabels`` (the mutator pins the pods to the pool with them);
- ``topologyLevels`` (Kueue topology-aware admission only);
- a chart version outside 0.34.x, or a team namespace equal to the engine's namespace.

Registered in ``CHECKS``.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.checks.dedicated import cohort_quota
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.yamlin.errors import Issue

SUPPORTED = "0.34."


def without_quota(fleet: Fleet, pool: Pool, base: FieldPath, mechanism: str, route: str) -> Iterator[Issue]:
    """What a pool whose mechanism has no quota needs (coscheduling, native): :func:`one_team_quota`'s rules, and
    ``nodeLabels`` (at ``base``, the pool's path) to pin its pods to its nodes."""
    yield from one_team_quota(fleet, pool, mechanism, route)
    if not pool.node_labels:
        yield Issue(
            base.child("nodeLabels"),
            f"{pool.system} pool {pool.name!r} has no nodeLabels: its pods could land on any node",
            "add the labels that select the pool's nodes (gpufleet.dev/pool: <name>)",
        )


def one_team_quota(fleet: Fleet, pool: Pool, mechanism: str, route: str) -> Iterator[Issue]:
    """Quota rules of a pool whose mechanism has no quota (coscheduling, native): one team, no borrowing, no other pool.

    ``mechanism`` names it in messages ("the coscheduling plugin"), ``route`` where the team's namespaces go.
    """
    owner: str | None = None
    kind = f"{pool.system} pool {pool.name!r}"
    for t, team in enumerate(fleet.teams):
        q = team.quota.get(pool.name)
        if q is None:
            continue
        path = FieldPath.of("teams", t, "quota", pool.name)
        if owner is not None:
            yield Issue(
                path,
                f"{kind} already belongs to team {owner!r}: {mechanism} has no quota between teams",
                f"move team {team.name!r} to a Kueue or Volcano pool, or give it a {pool.system} pool of its own",
            )
            continue
        owner = team.name
        for field, value in (("borrowingLimit", q.borrowing_limit), ("lendingLimit", q.lending_limit)):
            if value is not None:
                yield Issue(
                    path.child(field), f"{kind} cannot borrow or lend ({mechanism} has no quota)", f"remove {field}"
                )
        for other in team.quota:
            if other != pool.name:
                yield Issue(
                    FieldPath.of("teams", t, "quota", other),
                    f"team {team.name!r} holds {kind}: all its "
                    f"namespaces go to {route}, so its quota on {other!r} would never be used",
                    f"give the {other!r} quota to a team with its own namespaces",
                )
    yield from cohort_quota(fleet, pool, f"{kind} has one team's quota; a cohort cannot share it")


def check(fleet: Fleet) -> Iterable[Issue]:
    if not fleet.pools_of("coscheduling"):
        return
    for i, pool in enumerate(fleet.pools):
        if pool.system != "coscheduling":
            continue
        base = FieldPath.of("pools", i)
        yield from without_quota(fleet, pool, base, "the coscheduling plugin", "the second scheduler")
        if pool.topology_levels:
            yield Issue(
                base.child("topologyLevels"),
                "topologyLevels are Kueue topology-aware admission; the coscheduling plugin ignores them",
                "remove topologyLevels, or set system: kueue",
            )
    engine = fleet.engines.coscheduling
    if not engine.chart_version.startswith(SUPPORTED):
        yield Issue(
            FieldPath.of("engines", "coscheduling", "chartVersion"),
            f"scheduler-plugins chart {engine.chart_version!r} is not supported: gpufleet renders for 0.34.x",
            "pin chartVersion: 0.34.7",
        )
    for t, team in enumerate(fleet.teams):
        for n, ns in enumerate(team.namespaces):
            if ns == engine.namespace:
                yield Issue(
                    FieldPath.of("teams", t, "namespaces", n),
                    f"{ns!r} is the coscheduling engine's namespace",
                    "run the team's jobs in a namespace of its own",
                )
