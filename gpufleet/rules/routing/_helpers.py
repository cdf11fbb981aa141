"""Where a workload is meant to be scheduled, shared by the routing rules GANG101-GANG105.

``volcano_intent`` says why a workload is meant for Volcano's gang scheduler (a Volcano
queue, Volcano group annotations on its pods, or a fleet team that only has a Volcano
queue); ``kueue_routed`` says whether Kueue is meant to admit it. Scheduler names that
count as Volcano come from the rule option ``volcanoSchedulers`` (default ``["volcano"]``):
:class:`VolcanoSchedulerOptions`, which GANG101, GANG102, GANG103 and GANG107 each extend
beside the rule.
"""

from __future__ import annotations

from gpufleet.fleetctx.context import TeamContext
from gpufleet.kubetypes import vocab
from gpufleet.rules import gangs
from gpufleet.rules.api import CheckContext, rule_options
from gpufleet.rules.placement import VOLCANO_KINDS, volcano_only
from gpufleet.workloads import PodTemplate, WorkloadView, effective_scheduler
from gpufleet.workloads.kueue_gate import integration

POD_GROUP_KINDS = (("scheduling.volcano.sh", "PodGroup"), ("scheduling.x-k8s.io", "PodGroup"))


@rule_options
class VolcanoSchedulerOptions:
    """Which scheduler names count as Volcano's gang scheduler."""

    volcano_schedulers: tuple[str, ...] = (vocab.VOLCANO_SCHEDULER,)
    """Scheduler names of Volcano's scheduler (more than one with several Volcano profiles); empty = ["volcano"]."""


def volcano_names(ctx: CheckContext, code: str) -> frozenset[str]:
    names = ctx.options_for(code, VolcanoSchedulerOptions).volcano_schedulers
    return frozenset(names) or frozenset({vocab.VOLCANO_SCHEDULER})


def team(view: WorkloadView, ctx: CheckContext) -> TeamContext | None:
    return ctx.fleet.team_for_namespace(view.namespace) if ctx.fleet is not None else None


def _template_says_volcano(template: PodTemplate) -> bool:
    ann, labels = template.annotations, template.labels
    return any(k in ann for k in (vocab.VOLCANO_GROUP, vocab.VOLCANO_GROUP_ALT, vocab.VOLCANO_QUEUE)) or (
        vocab.VOLCANO_QUEUE in labels
    )


def volcano_intent(view: WorkloadView, ctx: CheckContext) -> str | None:
    """Why ``view`` (not a Volcano Job) must reach Volcano, or None when nothing says so."""
    if view.volcano_queue:
        return f"it names the Volcano queue {view.volcano_queue!r} at {view.volcano_queue_path}"
    if any(_template_says_volcano(t) for t in view.templates):
        return "its pods carry Volcano group or queue annotations"
    ann = view.annotations
    if view.kind == "Pod" and (vocab.VOLCANO_GROUP in ann or vocab.VOLCANO_GROUP_ALT in ann):
        return "it carries a Volcano group annotation"
    team_ctx = team(view, ctx)
    if team_ctx is not None and gangs.is_gang(view, ctx) and volcano_only(team_ctx):
        return f"namespace {view.namespace!r} belongs to team {team_ctx.name!r}, whose only queue is Volcano's"
    return None


def kueue_integration_off(view: WorkloadView, ctx: CheckContext) -> str | None:
    """The Kueue framework of ``view``'s kind when the fleet leaves it out of ``admission.frameworks``.

    None when the fleet enables it, or when no fleet (or an older context) says. Kueue gives a
    disabled integration a no-op webhook (``pkg/controller/jobframework/setup.go`` at v0.19.2), so
    a queue label on such a kind does nothing.
    """
    if ctx.fleet is None:
        return None
    name = integration(view.obj)
    return (name or f"none for {view.kind}") if ctx.fleet.kueue_integrates(name) is False else None


def kueue_routed(view: WorkloadView, ctx: CheckContext, code: str) -> bool:
    """Kueue, not Volcano, should admit ``view``: not a Volcano kind and not aimed at Volcano."""
    if (view.group, view.kind) in VOLCANO_KINDS or view.volcano_queue:
        return False
    names = volcano_names(ctx, code)
    return not any(effective_scheduler(view, t) in names for t in view.templates)
