"""GANG101 no-gang-scheduler: a gang meant for Volcano whose pods reach no gang scheduler.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

Pods that Volcano is supposed to gang-schedule but that nothing sends to Volcano:

- a Volcano Job with an explicit `spec.schedulerName` that is not Volcano's, while at
  least one task template leaves `schedulerName` empty (the job controller copies the
  job's name into those templates);
- a workload aimed at Volcano whose pod template leaves `schedulerName` empty, so its
  pods fall to `default-scheduler`. "Aimed at Volcano" means: a Kubeflow
  `runPolicy.schedulingPolicy.queue`; a `scheduling.volcano.sh/queue-name` annotation
  or label; Volcano group annotations (`scheduling.k8s.io/group-name`) on the pods; or,
  with a fleet context, a gang in a namespace whose team has a Volcano queue and no
  Kueue LocalQueue.

A template that names another scheduler explicitly is GANG102's. TrainJobs are not
checked (their pod templates live in the runtime). Scheduler names that count as
Volcano: option `volcanoSchedulers` (default `["volcano"]`). Upstream, nothing checks
this: Volcano's webhook only sees Volcano Jobs, and the training operator fills an
empty name only when it runs with `--gang-scheduler-name=volcano`.

Why it is unsafe

Only Volcano's gang plugin holds pods back until the whole gang fits. Pods that reach
the default scheduler are bound one by one as space appears: part of the gang starts,
holds its GPUs and waits in the rendezvous for ranks that may never be placed. Two such
gangs deadlock each other. Nothing reports it: the pods just run (Trainer v2 and several
operators have shipped exactly this bug, see peers.md §4).

Example

```yaml
apiVersion: kubeflow.org/v1
kind: PyTorchJob
spec:
  runPolicy:
    schedulingPolicy: {queue: research}
  pytorchReplicaSpecs:
    Worker:
      replicas: 8
      template:
        spec:
          containers: [...]
```

Preferred form

```yaml
    Worker:
      replicas: 8
      template:
        spec:
          schedulerName: volcano
          containers: [...]
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet import workloads
from gpufleet.kubetypes.fieldpath import FieldPath, set_value
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation, rule_options
from gpufleet.rules.celform import CelCheck, listed
from gpufleet.rules.celkinds import failing_templates
from gpufleet.rules.gangs import GANG_KINDS
from gpufleet.rules.routing import _cel as C
from gpufleet.rules.routing._helpers import VolcanoSchedulerOptions, volcano_intent, volcano_names
from gpufleet.workloads import PodTemplate, WorkloadView, template_scheduler
from gpufleet.workloads import outcomes as O

CODE = "GANG101"


def _job_level(view: WorkloadView, ctx: CheckContext) -> bool:
    names = volcano_names(ctx, CODE)
    return (
        bool(view.scheduler_name)
        and view.scheduler_name not in names
        and any(template_scheduler(t) is None for t in view.templates)
    )


def _operator_routed(view: WorkloadView, ctx: CheckContext) -> frozenset[str]:
    """The template paths whose pods an operator sends to a Volcano scheduler itself (the gang contract's placement:
    mpi-operator and training-operator overwrite ``schedulerName`` when they run with gang scheduling)."""
    contract = ctx.run.contract(view.obj)
    placement = contract.placement
    if placement.origin.derived is None:
        return frozenset()
    names = volcano_names(ctx, CODE)
    routed = {name for name, scheduler in placement.schedulers if scheduler in names}
    return frozenset(str(p.template_path) for p in contract.pod_sets if p.name in routed and p.template_path)


def _unrouted(view: WorkloadView, ctx: CheckContext) -> tuple[str | None, list[PodTemplate]]:
    reason = volcano_intent(view, ctx)
    if not reason:
        return None, []
    routed = _operator_routed(view, ctx)
    return reason, [t for t in view.templates if template_scheduler(t) is None and str(t.path) not in routed]


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    if view is None:
        return
    volcano = sorted(volcano_names(ctx, CODE))[0]
    if view.group == "batch.volcano.sh":
        if _job_level(view, ctx):
            yield Violation(
                FieldPath.of("spec", "schedulerName"),
                f"schedulerName {view.scheduler_name!r} is not Volcano's: the job's pods go to a scheduler "
                "without gang scheduling, so part of the gang can start alone",
                f"set spec.schedulerName to {volcano!r} (or remove it)",
            )
        return
    reason, templates = _unrouted(view, ctx)
    for template in templates:
        yield Violation(
            template.spec_path.child("schedulerName"),
            f"these pods are meant for Volcano ({reason}) but set no schedulerName, so they reach "
            "default-scheduler and start without their gang",
            f"set schedulerName: {volcano} in the pod template",
        )


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    view = workloads.build_view(obj)
    if view is None:
        return obj
    volcano = sorted(volcano_names(ctx, CODE))[0]
    if view.group == "batch.volcano.sh":
        if _job_level(view, ctx):
            obj["spec"]["schedulerName"] = volcano
        return obj
    for template in _unrouted(view, ctx)[1]:
        set_value(obj, template.spec_path.child("schedulerName"), volcano)
    return obj


@rule_options
class Gang101Options(VolcanoSchedulerOptions):
    """GANG101's options (`--config`: `options: {GANG101: {volcanoSchedulers: [volcano, volcano-gpu]}}`)."""


_VOLCANO = f"params.data['{CODE}.volcanoSchedulers']"
_JOB_CHECK = CelCheck(
    f"variables.jobScheduler == '' || {listed(CODE, 'volcanoSchedulers', 'variables.jobScheduler')} "
    f"|| !variables.tasks.exists(t, {C.task_scheduler()} == '')",
    "'spec.schedulerName'",
    "'schedulerName ' + variables.jobScheduler + ' is not Volcano\\'s: the job\\'s pods go to a scheduler "
    "without gang scheduling, so part of the gang can start alone'",
    f"'set spec.schedulerName to ' + {_VOLCANO} + ' (or remove it)'",
)
_TEMPLATE_CHECK = CelCheck(
    "!variables.intent || size(variables.unrouted) == 0",
    "variables.unrouted[0]",
    "'these pods are meant for Volcano but set no schedulerName, so they reach default-scheduler and start "
    "without their gang'",
    f"'set schedulerName: ' + {_VOLCANO} + ' in the pod template'",
)


def _cel_template_part(kind: str) -> tuple[tuple[tuple[str, str], ...], CelCheck]:
    bad = failing_templates(lambda t: f"{C.own_scheduler(t)} == ''", True, "spec.schedulerName", kinds=(kind,))
    return (("unrouted", bad),), _TEMPLATE_CHECK


CEL = C.form(((), _JOB_CHECK), _cel_template_part)


RULE = Rule(
    code=CODE,
    name="no-gang-scheduler",
    family="routing",
    severity=Severity.ERROR,
    summary="A gang meant for Volcano sends its pods to a scheduler without gang scheduling.",
    fix="set schedulerName: volcano on the job (Volcano Job) or in every pod template",
    kinds=GANG_KINDS,
    check=check,
    remediate=remediate,
    doc=__doc__ or "",
    options=Gang101Options,
    cel=CEL,
    predicts=O.NEVER_WHOLE,  # the pods' scheduler places them one by one
)
