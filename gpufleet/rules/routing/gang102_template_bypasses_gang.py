"""GANG102 template-bypasses-gang: a pod template names a scheduler other than its gang's.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A pod template with an explicit `schedulerName` that is not the gang scheduler:

- in a Volcano Job, any task template whose `schedulerName` differs from the job's
  gang scheduler (the job's `spec.schedulerName` when that is Volcano's, else
  `volcano`);
- in any other workload aimed at Volcano (a Volcano queue, Volcano group annotations,
  or a Volcano-only team with a fleet context, as in GANG101), a template naming a
  scheduler that is not Volcano's.

Scheduler names that count as Volcano: option `volcanoSchedulers` (default `["volcano"]`).
Volcano's webhook does not check this (volcano.md §3): its job controller fills only
templates that leave the name empty.

Why it is unsafe

The template's own `schedulerName` wins over the job's. Those pods bypass the gang:
the default scheduler binds them one at a time, while Volcano holds the rest of the
gang for a minimum that now counts pods it never sees. Either the gang never starts,
or part of it runs alone and waits for its peers.

Example

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  schedulerName: volcano
  tasks:
    - name: worker
      replicas: 8
      template:
        spec:
          schedulerName: default-scheduler
```

Preferred form

```yaml
    - name: worker
      replicas: 8
      template:
        spec: {}      # inherits the job's schedulerName
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.rules.api import CheckContext, Rule, Severity, Violation, rule_options
from gpufleet.rules.celform import CelCheck, listed
from gpufleet.rules.celkinds import failing_templates
from gpufleet.rules.gangs import GANG_KINDS
from gpufleet.rules.routing import _cel as C
from gpufleet.rules.routing._helpers import VolcanoSchedulerOptions, volcano_intent, volcano_names
from gpufleet.workloads import outcomes as O
from gpufleet.workloads import template_scheduler

CODE = "GANG102"


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    if view is None:
        return
    names = volcano_names(ctx, CODE)
    if view.group == "batch.volcano.sh":
        gang = view.scheduler_name if view.scheduler_name in names else sorted(names)[0]
        allowed, reason = {gang}, "the job's gang scheduler"
    else:
        intent = volcano_intent(view, ctx)
        if intent is None:
            return
        allowed, reason, gang = set(names), f"Volcano ({intent})", sorted(names)[0]
    for template in view.templates:
        own = template_scheduler(template)
        if own is not None and own not in allowed:
            where = f" ({template.role})" if template.role else ""
            yield Violation(
                template.spec_path.child("schedulerName"),
                f"pod template{where} names scheduler {own!r} instead of {reason}: its pods bypass the "
                "gang and are bound one by one",
                f"remove schedulerName from the template or set it to {gang!r}",
            )


@rule_options
class Gang102Options(VolcanoSchedulerOptions):
    """GANG102's options (`--config`: `options: {GANG102: {volcanoSchedulers: [volcano, volcano-gpu]}}`)."""


_VOLCANO = f"params.data['{CODE}.volcanoSchedulers']"


def _bypasses(t: str) -> str:
    own = C.own_scheduler(t)
    return f"({own} != '' && !{listed(CODE, 'volcanoSchedulers', own)})"


_TASK = C.task_scheduler()
_WHY = ": its pods bypass the gang and are bound one by one'"
_JOB = (
    (
        (
            "gang",
            f"{listed(CODE, 'volcanoSchedulers', 'variables.jobScheduler')} ? variables.jobScheduler : {_VOLCANO}",
        ),
        ("taskBypasses", f"variables.tasks.map(t, {_TASK} != '' && {_TASK} != variables.gang)"),
    ),
    CelCheck(
        "!variables.taskBypasses.exists(b, b)",
        "'spec.tasks[' + string(variables.taskBypasses.indexOf(true)) + '].template.spec.schedulerName'",
        f"'a task template names another scheduler than the job\\'s gang scheduler ' + variables.gang + '{_WHY}",
        "'remove schedulerName from the template or set it to ' + variables.gang",
    ),
)
_TEMPLATE_CHECK = CelCheck(
    "!variables.intent || size(variables.bypassing) == 0",
    "variables.bypassing[0]",
    f"'a pod template meant for Volcano names another scheduler{_WHY}",
    f"'remove schedulerName from the template or set it to ' + {_VOLCANO}",
)


def _cel_template_part(kind: str) -> tuple[tuple[tuple[str, str], ...], CelCheck]:
    return (("bypassing", failing_templates(_bypasses, False, "spec.schedulerName", kinds=(kind,))),), _TEMPLATE_CHECK


CEL = C.form(_JOB, _cel_template_part)


RULE = Rule(
    code=CODE,
    name="template-bypasses-gang",
    family="routing",
    severity=Severity.ERROR,
    summary="A pod template names another scheduler than its gang's, so its pods bypass the gang.",
    fix="remove the template's schedulerName (Volcano Job) or set it to volcano",
    kinds=GANG_KINDS,
    check=check,
    doc=__doc__ or "",
    options=Gang102Options,
    cel=CEL,
    predicts=O.NEVER_WHOLE,  # the template's pods bypass the gang
)
