"""Which engine owns each team namespace: the one rule that keeps Kueue and Volcano apart.

Every team namespace belongs to exactly one quota system. Kueue manages (suspends,
gates, admits) only workloads in Kueue namespaces; Volcano gangs run only in Volcano
namespaces and only on Volcano pools. A team's namespaces are Kueue's unless listed
in ``volcanoNamespaces``; a team whose quota is only on Volcano pools has all its
namespaces on Volcano; a team whose quota is only on coscheduling pools (one team per
such pool, ``checks.coscheduling``) has all its namespaces on the coscheduling plugin,
which Kueue never manages either; so has a team whose quota is only on ``native`` pools
(Kubernetes' own gang scheduling, one team per pool, ``checks.native``). Read by validation (``checks.ownership``), the renderers
(namespace labels, LocalQueues, Kueue's ``managedJobsNamespaceSelector``) and the
fleet context. See docs/architecture.md, "Who owns a namespace".
"""

from __future__ import annotations

from gpufleet.model.fleet import Fleet
from gpufleet.model.teams import Team

KUEUE = "kueue"
VOLCANO = "volcano"
COSCHEDULING = "coscheduling"
NATIVE = "native"
ONE_TEAM = frozenset({COSCHEDULING, NATIVE})
"""Systems without quota objects: one team per pool, whose namespaces Kueue never manages."""


def quota_systems(fleet: Fleet, team: Team) -> set[str]:
    """The quota systems of the pools the team has quota on (unknown pools are ignored)."""
    return {pool.system for name in team.quota if (pool := fleet.pool(name)) is not None}


def volcano_namespaces(fleet: Fleet, team: Team) -> list[str]:
    """The team's namespaces owned by Volcano, in model order."""
    if team.volcano_namespaces:
        chosen = set(team.volcano_namespaces)
        return [ns for ns in team.namespaces if ns in chosen]
    return list(team.namespaces) if quota_systems(fleet, team) == {VOLCANO} else []


def kueue_namespaces(fleet: Fleet, team: Team) -> list[str]:
    """The team's namespaces owned by Kueue, in model order."""
    systems = quota_systems(fleet, team)
    if systems and systems <= ONE_TEAM:
        return []
    volcano = set(volcano_namespaces(fleet, team))
    return [ns for ns in team.namespaces if ns not in volcano]


def namespace_engine(fleet: Fleet, team: Team, namespace: str) -> str:
    if namespace in volcano_namespaces(fleet, team):
        return VOLCANO
    systems = quota_systems(fleet, team)
    return next(iter(systems)) if len(systems) == 1 and systems <= ONE_TEAM else KUEUE
