"""GANG103 missing-queue-label: a gang Kueue should admit carries no queue label.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A workload without the `kueue.x-k8s.io/queue-name` label (the fleet's `queueLabel`)
where Kueue is meant to admit it:

- with a fleet context: a gang (Volcano kinds and workloads aimed at Volcano aside) in
  a namespace whose team has a Kueue LocalQueue;
- without one: a Kueue-style gang, i.e. plain pods with `kueue.x-k8s.io/pod-group-name`,
  or any workload carrying other `kueue.x-k8s.io/` labels or annotations
  (`pod-group-total-count`, `job-min-parallelism`, `priority-class`, ...).

Kueue reads only the label (kueue.md §6); an annotation of the same name does not count.

A CronJob is judged by the Job it creates (`spec.jobTemplate`, in the CronJob's
namespace), and reported at `spec.jobTemplate.metadata.labels[...]`: the CronJob
controller copies only the job template's metadata to its Jobs, so a queue label on the
CronJob's own metadata reaches none of them (the fix moves it), and a Job that would get
GANG103 on its own gets it through its CronJob. The sandbox's Kueue v0.19.2 and CronJob
controller showed it (`tests/e2e/test_kueue_labels_e2e.py`, `manageJobsWithoutQueueName:
true`): the Job of a CronJob labelled on itself carried no queue label, was suspended, and
its Workload, naming no LocalQueue ("LocalQueue  doesn't exist"), was never admitted; the
Job of one labelled in `jobTemplate.metadata` carried the label and was admitted.

Where the stack's gpufleet admission controller would add the team's LocalQueue label
itself (the team's Kueue kinds in its namespaces: `gpufleet.workloads.kueue_label`),
the message says so, and says what happens without the controller (a namespace opted
out, `controller.enabled: false`, the webhook down with `failurePolicy: Ignore`).

Why it is unsafe

What happens depends on the Kueue manager's settings, and the message says which one
applies when the fleet context carries them (`manageJobsWithoutQueueName`,
`managedJobsNamespaceSelector`, rendered from the model):

- Kueue does not manage the job (`manageJobsWithoutQueueName: false`, or the namespace
  is outside `managedJobsNamespaceSelector`): Kueue ignores it; the job is not
  suspended, skips quota and waitForPodsReady, and its pods go straight to the
  scheduler one by one, competing outside the quota system with gangs that were
  admitted whole, which is how partial gangs and deadlocks come back.
- Kueue manages it (`manageJobsWithoutQueueName: true` and a selected namespace): the
  job is suspended and its Workload names no LocalQueue, so it is never admitted and
  waits forever (unless a LocalQueue named `default` exists and Kueue's
  LocalQueueDefaulting fills the name in).

Without those settings (no fleet, or an older fleet context) the message names both.
The message stays short (what is missing, why Kueue should admit the gang, what happens);
which setting applies, and why, is here. The CronJob controller copies only the job
template's metadata to its Jobs, hence a label on the CronJob itself reaches none of them.

Example

```yaml
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: train
  namespace: research
```

Preferred form

```yaml
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: train
  namespace: research
  labels:
    kueue.x-k8s.io/queue-name: research   # the team's LocalQueue
```

With a fleet context, the remediation adds the team's LocalQueue; without one the
queue is unknown and nothing is changed.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet import workloads
from gpufleet.kubetypes import vocab
from gpufleet.rules import gangs
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation, rule_options
from gpufleet.rules.celform import JOB_KINDS, LWS_AND_RAY, CelCheck, CelForm, fact, listed, resources, unknown, without
from gpufleet.rules.celkinds import VOLCANO, VOLCANO_QUEUE_VARIABLES, failing_templates, framework, map_value, scheduler
from gpufleet.rules.gangs import GANG_KINDS
from gpufleet.rules.placement import VOLCANO_KINDS
from gpufleet.rules.routing._helpers import VolcanoSchedulerOptions, kueue_integration_off, kueue_routed, team
from gpufleet.workloads import WorkloadView, as_map, label_path
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.kueue_label import controller_queue
from gpufleet.workloads.types import SPEC

CODE = "GANG103"
JOB_TEMPLATE_METADATA = SPEC.child("jobTemplate", "metadata")


def _queue_key(ctx: CheckContext) -> str:
    return ctx.fleet.queue_label if ctx.fleet is not None else vocab.QUEUE_LABEL


def _kueue_hints(view: WorkloadView) -> list[str]:
    return sorted(
        k
        for source in (view.labels, view.annotations)
        for k in source
        if isinstance(k, str) and k.startswith(vocab.KUEUE_PREFIX) and k != vocab.QUEUE_LABEL
    )


def _missing(view: WorkloadView | None, ctx: CheckContext) -> tuple[str, str | None] | None:
    """(why Kueue should admit it, the team's LocalQueue or None) when the label is missing."""
    if view is None or (view.group, view.kind) in VOLCANO_KINDS or view.labels.get(_queue_key(ctx)):
        return None
    if kueue_integration_off(view, ctx):
        return None  # Kueue cannot admit this kind here: GANG106 says so
    team_ctx = team(view, ctx)
    if team_ctx is not None and team_ctx.local_queue and gangs.is_gang(view, ctx) and kueue_routed(view, ctx, CODE):
        return f"Kueue admits the gangs of namespace {view.namespace!r} (team {team_ctx.name!r})", team_ctx.local_queue
    hints = _kueue_hints(view)
    if hints and kueue_routed(view, ctx, CODE):
        local = team_ctx.local_queue if team_ctx is not None else None
        return f"it carries Kueue keys ({', '.join(hints)})", local
    return None


IGNORED = "Kueue ignores it: no quota, no whole-gang admission"
SUSPENDED = "Kueue suspends it: it waits forever"


def consequence(namespace: str | None, ctx: CheckContext) -> str:
    """What Kueue does with an unlabelled job in ``namespace``, as the fleet's settings say (which settings and
    why: the rule's docs, ``gpufleet explain GANG103``)."""
    holds = ctx.fleet.kueue_holds_unlabelled(namespace) if ctx.fleet is not None else None
    if holds is True:
        return SUSPENDED
    if holds is False:
        return IGNORED
    return "Kueue ignores it or it waits forever (as Kueue is set)"


def controller_note(view: WorkloadView, ctx: CheckContext, without: str) -> str:
    """``without`` (what Kueue does to the unlabelled job), preceded by what happens where the stack's
    admission controller adds the label itself (:func:`gpufleet.workloads.kueue_label.controller_queue`)."""
    team_ctx = team(view, ctx)
    queue = controller_queue(view, team_ctx, ctx.fleet) if team_ctx is not None else None
    if not queue:
        return without
    return f"unless the admission controller adds it, {without}"


def _cron_job(obj: Mapping[str, Any], ctx: CheckContext) -> tuple[Violation, str] | None:
    """The finding on a CronJob whose Jobs lack the label, with the value the fix writes ("" when unknown)."""
    job = ctx.run.derived_for(obj, _created_job, ctx)
    view = ctx.run.view(job)
    if view is None or view.labels.get(_queue_key(ctx)):
        return None
    path = label_path(_queue_key(ctx), JOB_TEMPLATE_METADATA)
    own = as_map(as_map(obj.get("metadata")).get("labels")).get(_queue_key(ctx))
    if own:
        return Violation(
            path,
            f"the {_queue_key(ctx)} label is on the CronJob, so the Jobs it creates lack it: "
            f"{controller_note(view, ctx, consequence(view.namespace, ctx))}",
            f"move the label to spec.jobTemplate.metadata.labels ({_queue_key(ctx)}: {own})",
        ), str(own)
    missing = _missing(view, ctx)
    if not missing:
        return None
    reason, local = missing
    return Violation(
        path,
        f"its Jobs get no {_queue_key(ctx)} label, yet {reason}: "
        f"{controller_note(view, ctx, consequence(view.namespace, ctx))}",
        f"add label {_queue_key(ctx)}: {local or '<LocalQueue>'} to spec.jobTemplate.metadata.labels",
    ), local or ""


def _created_job(view: WorkloadView | None, ctx: CheckContext) -> dict[str, Any]:
    return workloads.created_job(view.obj if view is not None else {})


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    if obj.get("kind") == "CronJob":
        found = _cron_job(obj, ctx)
        if found:
            yield found[0]
        return
    view = ctx.run.view(obj)
    missing = _missing(view, ctx)
    if missing and view is not None:
        reason, local = missing
        queue = local or "<LocalQueue>"
        yield Violation(
            label_path(_queue_key(ctx)),
            f"no {_queue_key(ctx)} label, yet {reason}: {controller_note(view, ctx, consequence(view.namespace, ctx))}",
            f"add label {_queue_key(ctx)}: {queue}",
        )


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    if obj.get("kind") == "CronJob":
        found = _cron_job(obj, ctx)
        if found and found[1]:
            template = obj.setdefault("spec", {}).setdefault("jobTemplate", {})
            template.setdefault("metadata", {}).setdefault("labels", {})[_queue_key(ctx)] = found[1]
        return obj
    missing = _missing(workloads.build_view(obj), ctx)
    if missing and missing[1]:
        obj.setdefault("metadata", {}).setdefault("labels", {})[_queue_key(ctx)] = missing[1]
    return obj


@rule_options
class Gang103Options(VolcanoSchedulerOptions):
    """GANG103's options (`--config`: `options: {GANG103: {volcanoSchedulers: [volcano, volcano-gpu]}}`)."""


def _hints(field: str) -> str:
    meta = f"object.metadata.{field}"
    return f"(has({meta}) && {meta}.exists(k, k.startsWith('{vocab.KUEUE_PREFIX}') && k != '{vocab.QUEUE_LABEL}'))"


_RESOURCES = without(resources(*JOB_KINDS), ("batch", "jobs"), *LWS_AND_RAY)
"""The kinds that are always gangs (:func:`gpufleet.rules.gangs.is_gang`) and a Volcano Job (Volcano admits it: never judged)."""
CEL = CelForm(
    resources=_RESOURCES,
    params=("volcanoSchedulers",),
    facts=("kueueNamespace", "kueueIntegrates"),
    variables=(
        *VOLCANO_QUEUE_VARIABLES,  # no Volcano Job reaches the check: Volcano, not Kueue, admits it
        (
            "toVolcano",
            failing_templates(lambda t: listed(CODE, "volcanoSchedulers", scheduler(t)), False, "spec.schedulerName"),
        ),
        ("kueueRouted", f"!{VOLCANO} && variables.volcanoQueue == '' && size(variables.toVolcano) == 0"),
        ("framework", framework(_RESOURCES)),
        ("integrated", f"{unknown('kueueIntegrates')} || {fact('kueueIntegrates', 'variables.framework')}"),
        ("hinted", f"{_hints('labels')} || {_hints('annotations')}"),
    ),
    checks=(
        CelCheck(
            f"{VOLCANO} || {map_value('object.metadata.labels', vocab.QUEUE_LABEL)} != '' "
            "|| !variables.integrated || !variables.kueueRouted "
            f"|| !({fact('kueueNamespace', 'request.namespace')} || variables.hinted)",
            f"'{label_path(vocab.QUEUE_LABEL)}'",
            f"'no {vocab.QUEUE_LABEL} label although Kueue should admit this gang (' + "
            f"({fact('kueueNamespace', 'request.namespace')} ? 'namespace ' + request.namespace + ' belongs to a "
            "team whose gangs Kueue admits' : 'it carries Kueue keys') + '): Kueue ignores it, or suspends it and "
            "never admits it'",
        ),
    ),
    note="batch Jobs (a gang only when it asks for GPUs, a fact of the GPU rules), LeaderWorkerSets and Ray kinds "
    "(their pod templates); CronJobs are sent to neither (the linter and the policy pack judge them)",
)


RULE = Rule(
    code=CODE,
    name="missing-queue-label",
    family="routing",
    severity=Severity.ERROR,
    summary="A gang that Kueue should admit has no kueue.x-k8s.io/queue-name label: Kueue ignores it or holds it forever.",
    fix="add the kueue.x-k8s.io/queue-name label naming the team's LocalQueue",
    kinds=(*GANG_KINDS, ("batch", "CronJob")),
    check=check,
    remediate=remediate,
    doc=__doc__ or "",
    options=Gang103Options,
    cel=CEL,
    predicts=O.NEVER_WHOLE,  # Kueue holds it forever, or ignores it and the pods bind one by one
)
