"""Namespace ownership and pool pinning: Kueue and Volcano never share a namespace or a node.

- every entry of ``volcanoNamespaces`` is one of the team's ``namespaces``;
- a team with quota on both Kueue and Volcano pools splits its namespaces: at least
  one for each engine (Kueue's ``managedJobsNamespaceSelector`` selects whole
  namespaces, so a shared namespace would have Kueue gate Volcano's pods);
- a Kueue-only team lists no ``volcanoNamespaces`` (no Volcano queue would serve them);
- every Volcano pool's nodes carry ``volcano.sh/nodegroup-name`` (in ``nodeLabels``):
  the Volcano queues are pinned to these node groups by ``nodeGroupAffinity`` and the
  ``nodegroup`` plugin (strict by default: unlabelled nodes are unfit), and no Kueue
  pool may carry that label (its GPUs would be counted by both).

Registered in ``CHECKS``; the rule is explained in docs/architecture.md.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.vocab import VOLCANO_NODEGROUP_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.model.ownership import KUEUE, VOLCANO, quota_systems
from gpufleet.yamlin.errors import Issue


def _team_namespaces(fleet: Fleet) -> Iterator[Issue]:
    for t, team in enumerate(fleet.teams):
        base = FieldPath.of("teams", t, "volcanoNamespaces")
        for n, ns in enumerate(team.volcano_namespaces):
            if ns not in team.namespaces:
                yield Issue(
                    base.index(n),
                    f"{ns!r} is not one of the team's namespaces {team.namespaces}",
                    f"add {ns!r} to teams[{t}].namespaces, or remove it here",
                )
        systems = quota_systems(fleet, team)
        chosen = set(team.volcano_namespaces)
        if systems == {KUEUE, VOLCANO} and not (chosen and set(team.namespaces) - chosen):
            yield Issue(
                base,
                f"team {team.name!r} has quota on Kueue and Volcano pools, so its namespaces must be split: "
                "Kueue manages whole namespaces and would gate Volcano's pods in a shared one",
                "list in volcanoNamespaces the namespaces for Volcano jobs, and keep at least one other namespace for Kueue jobs",
            )
        elif systems == {KUEUE} and chosen:
            yield Issue(
                base,
                f"team {team.name!r} has no quota on Volcano pools, so no Volcano queue serves these namespaces",
                "remove volcanoNamespaces, or give the team quota on a Volcano pool",
            )


def _node_groups(fleet: Fleet) -> Iterator[Issue]:
    for p, pool in enumerate(fleet.pools):
        path = FieldPath.of("pools", p, "nodeLabels", VOLCANO_NODEGROUP_LABEL)
        has = VOLCANO_NODEGROUP_LABEL in pool.node_labels
        if pool.system == VOLCANO and not has:
            yield Issue(
                path,
                f"Volcano pool {pool.name!r} names no node group: its queues could not be pinned to it, "
                "and Volcano gangs could land on Kueue's nodes",
                f"label the pool's nodes and add nodeLabels: {{{VOLCANO_NODEGROUP_LABEL}: {pool.name}}}",
            )
        elif pool.system == KUEUE and has:
            yield Issue(
                path,
                f"Kueue pool {pool.name!r} carries the Volcano node-group label: Volcano would schedule onto GPUs Kueue counts",
                f"remove {VOLCANO_NODEGROUP_LABEL} from this pool's nodeLabels",
            )


def check(fleet: Fleet) -> Iterable[Issue]:
    yield from _team_namespaces(fleet)
    yield from _node_groups(fleet)
