"""GANG803 pod-group-larger-than-gang: a coscheduling PodGroup's minMember is above the pods that join it.

Called by the rule engine (linter, policy pack) through the registry; it reads the
other objects of the run.

What it checks

A `scheduling.x-k8s.io/v1alpha1` PodGroup whose `spec.minMember` is above the pods of
the run's templated workloads that carry `scheduling.x-k8s.io/pod-group: <its name>`,
when at least one member is in the run. Plain Pods and Deployments/ReplicaSets/
StatefulSets are GANG002's.

Why it is unsafe

PreFilter rejects every pod of the group while fewer pods exist than `minMember`
(scheduler-plugins v0.34.7 `core.go`, `quorumGap > 0`): the job never schedules,
and only a scheduling event says why.

Example

```yaml
kind: PodGroup
spec: {minMember: 8}        # the JobSet stamps out 6 pods
```

Preferred form

```yaml
spec: {minMember: 6}
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.coscheduling._helpers import PODGROUP, quorum
from gpufleet.workloads import outcomes as O


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    q = quorum(obj, ctx)
    if q is not None and q.outcome == "never":
        yield q.mismatch("above", "the plugin never finds a quorum and the job never schedules")


RULE = Rule(
    code="GANG803",
    name="pod-group-larger-than-gang",
    family="coscheduling",
    severity=Severity.ERROR,
    summary="A coscheduling PodGroup's minMember is above the pods of the workloads that join it.",
    fix="set minMember to the pods that join the group",
    kinds=(PODGROUP,),
    check=check,
    needs_objects=True,
    doc=__doc__ or "",
    predicts=O.NEVER_WHOLE,  # the PodGroup waits for pods that never come
)
