"""GANG111 undeclared-priority-class: pods name a PriorityClass the fleet model does not render.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; needs a fleet context (`gpufleet lint --fleet MODEL`).

What it checks

The PriorityClass each pod template's pods are created with
(`gpufleet.workloads.podmeta.priority_class`: the template's `priorityClassName`, else, for a
Volcano Job, the Job's `spec.priorityClassName`, which its job controller copies into pods
without one) must be one the model renders (`priorityClasses`) or one every cluster has
(`system-cluster-critical`, `system-node-critical`).

Why it is unsafe

The API server's Priority admission plugin refuses a pod naming a PriorityClass that does not
exist ("no PriorityClass with name … was found"). A Pod is refused at once; a Job's, a
Volcano Job's or an operator's pods are refused when their controller creates them, so the
workload exists, may be admitted and hold quota, and never runs. Seen on the sandbox: a
Volcano Job with `priorityClassName: gang-urgent` never ran, its pod creates forbidden.

Example

```yaml
spec:
  template:
    spec:
      priorityClassName: gang-urgent   # the model renders gang-high only
```

Preferred form

```yaml
spec:
  template:
    spec:
      priorityClassName: gang-high
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.workloads import WORKLOAD_KINDS
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.podmeta import BUILT_IN_PRIORITY_CLASSES, priority_class


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    found = ctx.run.view(obj)
    if found is None or ctx.fleet is None:
        return
    known = sorted(pc.name for pc in ctx.fleet.priority_classes)
    said = set()
    for template in found.templates:
        name, path = priority_class(found, template)
        if name is None or path is None or name in known or name in BUILT_IN_PRIORITY_CLASSES or path in said:
            continue
        said.add(path)
        yield Violation(
            path,
            f"PriorityClass {name!r} is not rendered by the fleet model (its priority classes: "
            f"{', '.join(known) or 'none'}): the API server refuses every pod naming it, so the workload never runs",
            f"name one of the model's priority classes ({', '.join(known) or 'declare one in priorityClasses'}) "
            "or add it to the model",
        )


RULE = Rule(
    code="GANG111",
    name="undeclared-priority-class",
    family="routing",
    severity=Severity.ERROR,
    summary="Pods name a PriorityClass the fleet model does not render: the API server refuses them.",
    fix="name a priority class of the fleet model in priorityClassName",
    kinds=tuple(sorted(WORKLOAD_KINDS)),
    check=check,
    needs_fleet=True,
    doc=__doc__ or "",
    predicts=frozenset({O.REFUSED}) | O.NEVER_WHOLE,  # a Pod is refused; a controller's pod creates are
)
