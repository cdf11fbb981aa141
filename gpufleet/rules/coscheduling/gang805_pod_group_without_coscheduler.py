"""GANG805 pod-group-without-coscheduler: pods join a coscheduling group but go to another scheduler.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A pod template with `scheduling.x-k8s.io/pod-group` whose scheduler (its own
`schedulerName`, else the default scheduler) is not the coscheduling profile: the
fleet's `engines.coscheduling.schedulerName` with a fleet context, else option
`schedulerNames` (default `["scheduler-plugins-scheduler"]`).

Why it is unsafe

Only the scheduler-plugins profile reads the pod-group label. The default scheduler
(and Volcano) ignore it and bind the pods one by one: part of the gang starts and
waits in the rendezvous for ranks that may never be placed.

Example

```yaml
template:
  metadata:
    labels: {scheduling.x-k8s.io/pod-group: train}
  spec:
    containers: [...]
```

Preferred form

```yaml
  spec:
    schedulerName: scheduler-plugins-scheduler
    containers: [...]
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation, rule_options
from gpufleet.rules.celform import CelCheck, CelForm, fact, listed, resources, unknown
from gpufleet.rules.celkinds import failing_templates, map_value
from gpufleet.rules.celkinds import scheduler as scheduler_of
from gpufleet.rules.coscheduling._helpers import DEFAULT_SCHEDULER_NAME, MEMBER_KINDS, members
from gpufleet.workloads import effective_scheduler
from gpufleet.workloads import outcomes as O

CODE = "GANG805"


@rule_options
class Gang805Options:
    """GANG805's options (`--config`: `options: {GANG805: {schedulerNames: [my-cosched]}}`)."""

    scheduler_names: tuple[str, ...] = (DEFAULT_SCHEDULER_NAME,)
    """Scheduler names that run the coscheduling plugin; ignored with a fleet (its coscheduling scheduler wins)."""


def scheduler_names(ctx: CheckContext) -> frozenset[str]:
    if ctx.fleet is not None and ctx.fleet.coscheduling_scheduler:
        return frozenset({ctx.fleet.coscheduling_scheduler})
    return frozenset(ctx.options_for(CODE, Gang805Options).scheduler_names)


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    if view is None:
        return
    allowed = scheduler_names(ctx)
    for member in members(view):
        scheduler = effective_scheduler(view, member.template)
        if scheduler not in allowed:
            name = sorted(allowed)[0]
            yield Violation(
                member.template.spec_path.child("schedulerName"),
                f"the pods join coscheduling group {member.group!r} but go to {scheduler!r}, which ignores the "
                "group: they are bound one by one",
                f"set schedulerName: {name}",
            )


def _ignored(t: str) -> str:
    """CEL: template ``t`` joins a coscheduling group and its scheduler is not one of :func:`scheduler_names`."""
    scheduler = scheduler_of(t)
    allowed = (
        f"({unknown('coschedulingScheduler')} ? {listed(CODE, 'schedulerNames', scheduler)} "
        f": {fact('coschedulingScheduler', scheduler)})"
    )
    return f"({map_value(f'{t}.metadata.labels', vocab.COSCHEDULING_GROUP)} != '' && !{allowed})"


CEL = CelForm(
    resources=resources(
        ("batch", "jobs"), ("jobset.x-k8s.io", "jobsets"), ("kubeflow.org", "pytorchjobs"), ("kubeflow.org", "mpijobs")
    ),
    params=("schedulerNames",),
    facts=("coschedulingScheduler",),
    variables=(("ignored", failing_templates(_ignored, False, "spec.schedulerName")),),
    checks=(
        CelCheck(
            "size(variables.ignored) == 0",
            "variables.ignored[0]",
            "'the pods join a coscheduling group but go to a scheduler that ignores the group: they are bound "
            "one by one'",
        ),
    ),
    note="Kueue pod-group Pods (Deployments, ReplicaSets, StatefulSets and other Pods are sent to neither: the linter "
    "and the policy pack judge them)",
)


RULE = Rule(
    code=CODE,
    name="pod-group-without-coscheduler",
    family="coscheduling",
    severity=Severity.ERROR,
    summary="Pods carry a coscheduling pod-group label but go to a scheduler that ignores it.",
    fix="set schedulerName to the coscheduling scheduler's profile",
    kinds=MEMBER_KINDS,
    check=check,
    doc=__doc__ or "",
    options=Gang805Options,
    cel=CEL,
    predicts=O.NEVER_WHOLE,  # the scheduler ignores the pod group: pods bind one by one
)
