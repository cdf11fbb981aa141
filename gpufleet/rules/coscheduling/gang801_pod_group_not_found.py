"""GANG801 pod-group-not-found: pods join a coscheduling PodGroup that the run does not contain.

Called by the rule engine (linter, policy pack) through the registry; it reads the
other objects of the run, so the admission controller (one object at a time) skips it.

What it checks

A workload whose pod template carries `scheduling.x-k8s.io/pod-group: <name>` while no
`scheduling.x-k8s.io/v1alpha1` PodGroup of that name is among the objects checked
together in the same namespace.

Why it is unsafe

The Coscheduling plugin denies every pod whose PodGroup does not exist at Permit
(`PodGroupNotFound`, scheduler-plugins v0.34.7 `pkg/coscheduling/core/core.go`): the
gang stays pending with a scheduling event only, and nothing creates the PodGroup
for a plain Job or JobSet. Shipping the PodGroup with the job keeps them in step.

Example

```yaml
kind: Job
metadata: {name: train, namespace: robotics}
spec:
  template:
    metadata:
      labels: {scheduling.x-k8s.io/pod-group: train}
```

Preferred form

```yaml
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: train, namespace: robotics}
spec: {minMember: 4, scheduleTimeoutSeconds: 300}   # gpufleet podgroups MODEL job.yaml
---
kind: Job
...
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.coscheduling._helpers import MEMBER_KINDS, members, pod_group
from gpufleet.workloads import outcomes as O


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    if view is None or not ctx.objects:
        return
    reported: set[str] = set()
    for member in members(view):
        if member.group in reported or pod_group(ctx, view.namespace, member.group) is not None:
            continue
        reported.add(member.group)
        where = f" in namespace {view.namespace!r}" if view.namespace else ""
        yield Violation(
            member.path,
            f"PodGroup {member.group!r} is not among the objects checked{where}: the coscheduling "
            "plugin denies every pod of a missing group, so the gang never starts",
            f"ship a scheduling.x-k8s.io/v1alpha1 PodGroup named {member.group!r} with the workload (gpufleet podgroups)",
        )


RULE = Rule(
    code="GANG801",
    name="pod-group-not-found",
    family="coscheduling",
    severity=Severity.ERROR,
    summary="Pods join a coscheduling PodGroup that is not among the objects checked with them.",
    fix="ship the PodGroup (scheduling.x-k8s.io/v1alpha1) with the workload",
    kinds=MEMBER_KINDS,
    check=check,
    needs_objects=True,
    doc=__doc__ or "",
    predicts=O.NEVER_WHOLE,  # pods wait for a PodGroup that does not exist
)
