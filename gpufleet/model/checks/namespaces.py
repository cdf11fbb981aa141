"""Team namespaces: each claimed by one team, none of them a system namespace.

A namespace gets one LocalQueue per team that lists it and the webhook routes its
jobs to that team, so two teams in one namespace make routing ambiguous. System
namespaces (Kubernetes', Kueue's, Volcano's, the controller's) must stay out of
``managedJobsNamespaceSelector``: Kueue's config validation fails when the ``pod``
integration is on and kube-system or its own namespace is managed. The controller's
``optOutLabel`` is a namespace label key, read by the webhook's namespaceSelector, so it
must be a valid Kubernetes label key (the API server would reject the configuration).
A namespace in ``partitionExemptNamespaces`` is a node agent's and no team's: exempting a
team's namespace would let that team's pods onto every dedicated pool.
Registered in ``CHECKS``.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.checks.k8s import QUALIFIED_NAME_FIX, qualified_name_problems
from gpufleet.model.fleet import Fleet
from gpufleet.yamlin.errors import Issue

KUBERNETES_NAMESPACES = ("kube-system", "kube-public", "kube-node-lease", "default")


def system_namespaces(fleet: Fleet) -> dict[str, str]:
    """Namespace -> what owns it."""
    owners = {ns: "Kubernetes" for ns in KUBERNETES_NAMESPACES}
    owners[fleet.engines.kueue.namespace] = "Kueue"
    owners[fleet.engines.volcano.namespace] = "Volcano"
    owners[fleet.controller.namespace] = "the gpufleet controller"
    return owners


def _opt_out_label(fleet: Fleet) -> Iterator[Issue]:
    for problem in qualified_name_problems(fleet.controller.opt_out_label):
        yield Issue(FieldPath.of("controller", "optOutLabel"), f"the opt-out label key {problem}", QUALIFIED_NAME_FIX)


def check(fleet: Fleet) -> Iterable[Issue]:
    yield from _opt_out_label(fleet)
    system = system_namespaces(fleet)
    claimed: dict[str, tuple[int, int]] = {}
    for t, team in enumerate(fleet.teams):
        for n, ns in enumerate(team.namespaces):
            path = FieldPath.of("teams", t, "namespaces", n)
            if ns in system:
                yield Issue(
                    path,
                    f"{ns!r} is a system namespace ({system[ns]}); its jobs must not be managed as a team's",
                    "run the team's jobs in a namespace of its own",
                )
            if ns in claimed:
                ot, on = claimed[ns]
                owner = "the same team" if ot == t else f"team {fleet.teams[ot].name!r}"
                yield Issue(
                    path,
                    f"namespace {ns!r} is already listed by {owner} (teams[{ot}].namespaces[{on}])",
                    "list each namespace once, under the one team that owns it",
                )
            else:
                claimed[ns] = (t, n)
    yield from _exempt_team_namespaces(fleet, claimed)


def _exempt_team_namespaces(fleet: Fleet, claimed: dict[str, tuple[int, int]]) -> Iterator[Issue]:
    for n, ns in enumerate(fleet.partition_exempt_namespaces):
        if ns in claimed:
            yield Issue(
                FieldPath.of("partitionExemptNamespaces", n),
                f"namespace {ns!r} is team {fleet.teams[claimed[ns][0]].name!r}'s: exempting it from static "
                "partitioning lets that team's pods onto every dedicated pool",
                "exempt only node agents' namespaces (the GPU operator's); run team jobs elsewhere",
            )
