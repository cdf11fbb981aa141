"""GANG802 pod-group-smaller-than-gang: a coscheduling PodGroup's minMember is below the pods that join it.

Called by the rule engine (linter, policy pack) through the registry; it reads the
other objects of the run.

What it checks

A `scheduling.x-k8s.io/v1alpha1` PodGroup whose `spec.minMember` is below the pods of
the run's Jobs, JobSets, Kubeflow jobs and other templated workloads that carry
`scheduling.x-k8s.io/pod-group: <its name>` (replicas per template). Plain Pods and
Deployments/ReplicaSets/StatefulSets are GANG001's. Skipped when a member opts into elasticity (`gpufleet.dev/elastic: "true"`)
or no member is in the run.

Why it is unsafe

The plugin releases the group as soon as `minMember` pods are assigned
(scheduler-plugins v0.34.7 `core.go` `Permit`): a synchronous job then starts with
part of its ranks, holds their GPUs and waits in the rendezvous for the rest, which
are scheduled one by one like ordinary pods.

Example

```yaml
kind: PodGroup
metadata: {name: train}
spec: {minMember: 2}        # the Job has parallelism 4
```

Preferred form

```yaml
spec: {minMember: 4}
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.coscheduling._helpers import PODGROUP, quorum
from gpufleet.workloads import outcomes as O


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    q = quorum(obj, ctx)
    if q is not None and q.outcome == "partial" and not q.elastic:
        yield q.mismatch("below", f"the plugin starts the gang once {q.minimum} are placed")


RULE = Rule(
    code="GANG802",
    name="pod-group-smaller-than-gang",
    family="coscheduling",
    severity=Severity.ERROR,
    summary="A coscheduling PodGroup's minMember is below the pods of the workloads that join it.",
    fix="set minMember to every pod that joins the group",
    kinds=(PODGROUP,),
    check=check,
    needs_objects=True,
    doc=__doc__ or "",
    predicts=O.NEVER_WHOLE,  # the PodGroup admits part of the gang
)
