"""GANG804 pod-group-timeout-below-cold-start: a coscheduling PodGroup gives up before its gang can start.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A `scheduling.x-k8s.io/v1alpha1` PodGroup without `spec.scheduleTimeoutSeconds`, or,
with a fleet context, with a value below the cold-start budget of the namespace's
team's coscheduling pool (`pools[].coldStartBudget`; the fleet's `coldStartFloor`
when the pool has none, or the namespace is not a coscheduling team's).

Why it is unsafe

Placed pods of a group wait `scheduleTimeoutSeconds`, else the plugin's
`permitWaitingTimeSeconds` (10s in the chart's values), else 60s, for their
siblings; then the whole group is rejected and backs off (scheduler-plugins v0.34.7
`pkg/util/podgroup.go` `GetWaitTimeDuration`). A gang that needs longer to be placed
on a busy pool cycles forever, holding and releasing GPUs.

Example

```yaml
kind: PodGroup
spec: {minMember: 4}
```

Preferred form

```yaml
spec: {minMember: 4, scheduleTimeoutSeconds: 300}   # the pool's coldStartBudget
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.fieldpath import FieldPath
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.coscheduling._helpers import PODGROUP, coscheduling_budget
from gpufleet.workloads import as_int, as_map

PATH = FieldPath.of("spec", "scheduleTimeoutSeconds")


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    if view is None:
        return
    timeout = as_int(as_map(obj.get("spec")).get("scheduleTimeoutSeconds"))
    budget = coscheduling_budget(ctx, view.namespace)
    want = f"set scheduleTimeoutSeconds: {budget}" if budget else "set scheduleTimeoutSeconds to the pool's cold-start budget"
    if timeout is None:
        yield Violation(PATH, "no scheduleTimeoutSeconds: placed pods wait only the plugin's permitWaitingTimeSeconds "
                              "(10s in the chart) for the rest of the gang", want)
    elif budget is not None and timeout < budget:
        yield Violation(PATH, f"scheduleTimeoutSeconds {timeout} is below the pool's cold-start budget of {budget}s: "
                              "the group is rejected before the gang can be placed", want)


RULE = Rule(
    code="GANG804", name="pod-group-timeout-below-cold-start", family="coscheduling", severity=Severity.ERROR,
    summary="A coscheduling PodGroup has no scheduleTimeoutSeconds, or one below its pool's cold-start budget.",
    fix="set scheduleTimeoutSeconds to at least the pool's coldStartBudget",
    kinds=(PODGROUP,), check=check, doc=__doc__ or "",
)
