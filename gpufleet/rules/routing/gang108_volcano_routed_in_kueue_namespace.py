"""GANG108 volcano-routed-in-kueue-namespace: a workload meant for Volcano in a namespace Kueue holds.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; only with a fleet context (it needs to know which engine owns the namespace).

What it checks

A workload in a team's Kueue namespace (a team namespace not in `volcanoNamespaces`,
docs/architecture.md "Who owns a namespace") where Kueue holds unlabelled work
(`manageJobsWithoutQueueName` with a `managedJobsNamespaceSelector` that selects it),
when the workload is routed to Volcano and names no Kueue queue:

- a Volcano Job (`batch.volcano.sh`), with or without `spec.queue`, when Kueue's `pod`
  integration is enabled;
- any other workload whose pods go to a Volcano scheduler (`schedulerName: volcano`, or
  a name in option `volcanoSchedulers`) or that names a Volcano queue, when Kueue
  integrates its kind (`batch/job`, `jobset.x-k8s.io/jobset`, ...: suspended) or, failing
  that, pods (its pods have no Kueue-managed ancestor: gated).

A context without Kueue's frameworks (an older digest) counts every integration as
enabled. A workload with a `kueue.x-k8s.io/queue-name` label is Kueue's (GANG107 judges
its placement).

Why it is unsafe

Kueue v0.19.2's pod webhook gates every pod without a Kueue-managed ancestor in a managed
namespace when `manageJobsWithoutQueueName` is on (`pkg/controller/jobs/pod/pod_webhook.go`,
`PodWebhook.Default`); a Volcano Job is no Kueue integration, so all its pods are gated,
and Volcano never schedules a gated pod. A batch Job (or JobSet, PyTorchJob, ...) without
a queue name is suspended (`pkg/controller/jobframework/utils.go`,
`WorkloadShouldBeSuspended`); its Workload names no LocalQueue and is never admitted. Either
way the gang stays Pending forever, and no alert fires on Pending pods.

Example

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: train, namespace: alpha}     # alpha is Kueue's; alpha-vc is Volcano's
spec:
  schedulerName: volcano
  tasks: [{name: worker, replicas: 4, template: {...}}]
```

Preferred form

```yaml
metadata: {name: train, namespace: alpha-vc}  # the team's Volcano namespace
```
or run it through Kueue: a batch Job or JobSet with `kueue.x-k8s.io/queue-name: alpha`
and no `schedulerName: volcano`.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.fleetctx.context import FleetContext, TeamContext
from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation, rule_options
from gpufleet.rules.celform import JOB_KINDS, LWS_AND_RAY, CelCheck, CelForm, fact, listed, resources, unknown, without
from gpufleet.rules.celkinds import VOLCANO, VOLCANO_QUEUE_VARIABLES, failing_templates, framework, map_value, scheduler
from gpufleet.rules.gangs import GANG_KINDS
from gpufleet.rules.placement import VOLCANO_KINDS
from gpufleet.rules.routing._helpers import VolcanoSchedulerOptions, volcano_names
from gpufleet.workloads import WorkloadView, effective_scheduler
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.kueue_gate import integration

CODE = "GANG108"
VOLCANO_JOB = ("batch.volcano.sh", "Job")
GATED = (
    "Kueue's pod integration gates every pod of it (no Kueue-managed ancestor: pkg/controller/jobs/pod/"
    "pod_webhook.go at v0.19.2) and Volcano never schedules a gated pod"
)
SUSPENDED = (
    "Kueue suspends it (manageJobsWithoutQueueName: WorkloadShouldBeSuspended, pkg/controller/jobframework/"
    "utils.go at v0.19.2) and its Workload names no LocalQueue, so it is never admitted"
)


def _volcano_route(view: WorkloadView, ctx: CheckContext) -> tuple[FieldPath, str] | None:
    """Where and why ``view`` is routed to Volcano, or None."""
    if (view.group, view.kind) == VOLCANO_JOB:
        return FieldPath.of("metadata", "namespace"), "this Volcano Job"
    if (view.group, view.kind) in VOLCANO_KINDS:
        return None
    names = volcano_names(ctx, CODE)
    for template in view.templates:
        scheduler = effective_scheduler(view, template)
        if scheduler in names:
            return template.spec_path.child("schedulerName"), f"this {view.kind}, whose pods go to {scheduler!r},"
    if view.volcano_queue:
        return view.volcano_queue_path or FieldPath.of(
            "metadata", "namespace"
        ), f"this {view.kind}, which names the Volcano queue {view.volcano_queue!r},"
    return None


def _held(view: WorkloadView, fleet: FleetContext) -> str | None:
    """How Kueue holds ``view`` in its namespace, or None when it does not."""
    if fleet.kueue_holds_unlabelled(view.namespace) is False:
        return None
    framework = None if (view.group, view.kind) == VOLCANO_JOB else integration(view.obj)
    if framework is not None and fleet.kueue_integrates(framework) is not False:
        return SUSPENDED
    # No (enabled) integration for the kind itself: its pods have no Kueue-managed ancestor, so the pod
    # integration gates them (pkg/controller/jobframework/reconciler.go FindAncestorJobManagedByKueue).
    return GATED if fleet.kueue_integrates("pod") is not False else None


def _fix(team: TeamContext, fleet: FleetContext) -> str:
    label = fleet.queue_label
    kueue = f"or run it through Kueue (label {label}: {team.local_queue}, no Volcano schedulerName or queue)"
    if team.volcano_namespaces:
        return f"submit it in team {team.name!r}'s Volcano namespace {', '.join(team.volcano_namespaces)}, {kueue}"
    return f"team {team.name!r} has no Volcano namespace: give it one (volcanoNamespaces) for Volcano work, {kueue}"


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view, fleet = ctx.run.view(obj), ctx.fleet
    if view is None or fleet is None or view.labels.get(fleet.queue_label):
        return
    team = fleet.team_for_namespace(view.namespace)
    if team is None or not team.local_queue or team.volcano_queue:
        return  # not a team's Kueue namespace (a context whose team has both queues in one namespace does not say)
    route = _volcano_route(view, ctx)
    held = _held(view, fleet) if route else None
    if route is None or held is None:
        return
    path, what = route
    yield Violation(
        path,
        f"namespace {view.namespace!r} is Kueue's (team {team.name!r}) and {what} names no Kueue "
        f"queue: {held}. The gang stays Pending forever",
        _fix(team, fleet),
    )


@rule_options
class Gang108Options(VolcanoSchedulerOptions):
    """GANG108's options (`--config`: `options: {GANG108: {volcanoSchedulers: [volcano, volcano-gpu]}}`)."""


_RESOURCES = without(resources(*JOB_KINDS), *LWS_AND_RAY)  # all but the note's kinds


def _integrates(framework: str) -> str:
    """CEL: the fleet's Kueue may run integration ``framework`` (``kueue_integrates`` is not False)."""
    return f"({unknown('kueueIntegrates')} || {fact('kueueIntegrates', framework)})"


CEL = CelForm(
    resources=_RESOURCES,
    params=("volcanoSchedulers",),
    facts=("kueueTeamNamespace", "kueueLeavesUnlabelled", "kueueIntegrates"),
    variables=(
        (
            "toVolcano",
            failing_templates(lambda t: listed(CODE, "volcanoSchedulers", scheduler(t)), False, "spec.schedulerName"),
        ),
        *VOLCANO_QUEUE_VARIABLES,
        (
            "route",
            f"{VOLCANO} ? 'metadata.namespace' : size(variables.toVolcano) > 0 ? variables.toVolcano[0] "
            ": variables.volcanoQueue != '' ? variables.volcanoQueuePath : ''",
        ),
        ("framework", framework(_RESOURCES)),
        (
            "held",
            f"!{fact('kueueLeavesUnlabelled', 'request.namespace')} && ((variables.framework != '' "
            f"&& {_integrates('variables.framework')}) || {_integrates(repr('pod'))})",
        ),
    ),
    checks=(
        CelCheck(
            f"{map_value('object.metadata.labels', vocab.QUEUE_LABEL)} != '' "
            f"|| !{fact('kueueTeamNamespace', 'request.namespace')} || variables.route == '' || !variables.held",
            "variables.route",
            "'namespace ' + request.namespace + ' is Kueue\\'s and this ' + object.kind + ' is routed to Volcano "
            "but names no Kueue queue: Kueue ' + (variables.framework != '' && "
            f"{_integrates('variables.framework')} ? 'suspends it and never admits it' "
            ": 'gates its pods and Volcano never schedules them') + '. The gang stays Pending forever'",
        ),
    ),
    note="LeaderWorkerSets and Ray kinds (their pod templates)",
)


RULE = Rule(
    code=CODE,
    name="volcano-routed-in-kueue-namespace",
    family="routing",
    severity=Severity.ERROR,
    summary="A Volcano-routed workload in a namespace where Kueue holds unlabelled work: gated or suspended forever.",
    fix="submit it in the team's Volcano namespace, or run it through Kueue with its queue label",
    kinds=GANG_KINDS,
    check=check,
    needs_fleet=True,
    doc=__doc__ or "",
    options=Gang108Options,
    cel=CEL,
    predicts=O.NEVER_WHOLE,  # Kueue holds work it will never admit
)
