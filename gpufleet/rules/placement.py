"""Which system will place a workload, so the capacity rules count only that system's pools.

Shared by the rule families: :mod:`gpufleet.rules.demands` (``candidate_pools``), hence
GANG402 and GANG403; the routing rules (:data:`VOLCANO_KINDS`); GANG106, GANG806 and the
admission policies (:func:`in_coscheduling_namespace`). A fleet gives each pool to one system (``kueue``, ``volcano`` or
``coscheduling``); a Volcano Job can only ever use Volcano's pools, a Kueue-admitted
job only the pools its ClusterQueue has flavors for. :func:`placing_system` reads, in
order of precedence:

1. the workload's own kind and scheduler: a Volcano kind, a Volcano queue, or pods that
   reach the ``volcano`` scheduler → ``volcano``; a scheduler-plugins PodGroup, pods
   carrying ``scheduling.x-k8s.io/pod-group`` or naming the fleet's coscheduling
   scheduler → ``coscheduling``;
2. a Kueue queue label → ``kueue``;
3. its namespace's team: a team with only a Volcano queue → ``volcano``, with a LocalQueue → ``kueue``.

None means nothing says (a gang without a route, GANG106's): every pool is a candidate.
"""

from __future__ import annotations

from gpufleet.fleetctx.context import FleetContext, TeamContext
from gpufleet.kubetypes import vocab
from gpufleet.rules.api import CheckContext
from gpufleet.workloads import WorkloadView, effective_scheduler

VOLCANO_KINDS = {("batch.volcano.sh", "Job"), ("scheduling.volcano.sh", "PodGroup")}
"""Kinds only Volcano places."""


def _own_system(view: WorkloadView, fleet: FleetContext) -> str | None:
    if (view.group, view.kind) in VOLCANO_KINDS or view.volcano_queue:
        return "volcano"
    schedulers = {effective_scheduler(view, t) for t in view.templates}
    if vocab.VOLCANO_SCHEDULER in schedulers:
        return "volcano"
    if (
        view.group == "scheduling.x-k8s.io"
        or any(vocab.COSCHEDULING_GROUP in t.labels for t in view.templates)
        or (fleet.coscheduling_scheduler and fleet.coscheduling_scheduler in schedulers)
    ):
        return "coscheduling"
    return None


def _team_system(team: TeamContext | None) -> str | None:
    if team is None:
        return None
    if team.volcano_queue and not team.local_queue:
        return "volcano"
    return "kueue" if team.local_queue and not team.volcano_queue else None


def placing_system(view: WorkloadView, fleet: FleetContext) -> str | None:
    """``kueue``, ``volcano`` or ``coscheduling``: the system that will place ``view``; None when nothing says."""
    own = _own_system(view, fleet)
    if own is not None:
        return own
    if view.labels.get(fleet.queue_label):
        return "kueue"
    return _team_system(fleet.team_for_namespace(view.namespace))


def in_coscheduling_namespace(ctx: CheckContext, namespace: str | None) -> bool:
    """Whether ``namespace``'s team has a coscheduling pool (scheduler-plugins places its gangs)."""
    fleet = ctx.fleet
    team = fleet.team_for_namespace(namespace) if fleet is not None else None
    return fleet is not None and team is not None and any(p.system == "coscheduling" for p in fleet.team_pools(team))


def volcano_only(team_ctx: TeamContext | None) -> bool:
    """Whether the team's only queue is Volcano's (no LocalQueue): read by the routing rules and GANG101's params."""
    return team_ctx is not None and bool(team_ctx.volcano_queue) and not team_ctx.local_queue
