"""GANG701 gang-without-identity: a gang whose pods will carry no gang identity label.

Called by the rule engine (linter, policy pack, admission controller) through the
registry. Shares the notion of identity with the mutator (``gpufleet.workloads.identity``).

What it checks

A gang workload (Volcano Job, JobSet, Kubeflow job, parallel batch Job, TrainJob, gang
Deployment/StatefulSet) with a pod template that has no `gpufleet.dev/gang` label, where
the admission controller will not add one either:

- the object has only `metadata.generateName`: its name, the identity the controller
  would stamp, does not exist yet when the mutating webhook sees it;
- with a fleet model whose observability is enabled (its context names `gangLabel`):
  the namespace belongs to no team (the controller leaves it alone), or the kind is one
  the controller's webhook is not sent (a gang Deployment or StatefulSet, a TFJob, ...:
  only the kinds in `gpufleet.kubetypes.admission_kinds.WORKLOAD_RESOURCES` are).

With a fleet model whose observability is disabled there are no gang alerts to feed,
and the rule stays quiet.

Objects a controller owns (a JobSet's Jobs) and pods of a pod group (the group's name
is their identity) are not checked.

Why it is unsafe

The gang alerts (GangNoFirstStep, GangPartiallyRunning, GangStepStalled) group pods by
this label, through kube-state-metrics' `kube_pod_labels`. A gang without it is
invisible to them: when it runs but never trains, or runs 400 of 512 pods for hours,
nobody is paged while it holds its GPUs.

Example

```yaml
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  generateName: llm-          # no name at admission: nothing to stamp
  namespace: research
spec:
  replicatedJobs:
  - name: workers
    template:
      spec:
        parallelism: 64
        template:
          spec: {containers: [{name: w, image: trainer:1}]}
```

Preferred form

```yaml
spec:
  replicatedJobs:
  - name: workers
    template:
      spec:
        parallelism: 64
        template:
          metadata:
            labels: {gpufleet.dev/gang: llm-7b-run-42}   # the same value on every template of the gang
          spec: {containers: [{name: w, image: trainer:1}]}
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet import workloads
from gpufleet.kubetypes.admission_kinds import KIND_OF, WORKLOAD_RESOURCES
from gpufleet.fleetctx.context import GANG_LABEL
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.routing._helpers import WORKLOAD_KINDS
from gpufleet.workloads import label_path
from gpufleet.workloads.identity import gang_identity, stampable, unlabelled_templates
from gpufleet.workloads import outcomes as O

MUTATED_KINDS = frozenset((group, KIND_OF[resource]) for group, _, resource in WORKLOAD_RESOURCES)
"""(apiGroup, kind) of the workloads the admission controller's mutating webhook is sent."""
FIX = f"label every pod template of the gang with {GANG_LABEL}: <unique name of the gang>"


def _why_not_stamped(view: workloads.WorkloadView, ctx: CheckContext) -> str | None:
    if ctx.fleet is not None and not ctx.fleet.gang_label:
        return None  # observability disabled: no alerts read the label
    if gang_identity(view) is None:
        return "the object has only generateName, so the admission controller has no name to stamp"
    if ctx.fleet is None:
        return None
    if view.namespace and ctx.fleet.team_for_namespace(view.namespace) is None:
        return f"namespace {view.namespace!r} belongs to no team, so the admission controller does not mutate it"
    if (view.group, view.kind) not in MUTATED_KINDS:
        return f"the admission controller is not sent {view.kind} objects"
    return None


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    if view is None or view.kind == "Pod" or not stampable(view):
        return
    missing = unlabelled_templates(view)
    why = _why_not_stamped(view, ctx) if missing else None
    if why is None:
        return
    by_path = {t.path: t for t in view.templates}
    for path in missing:
        yield Violation(label_path(GANG_LABEL, by_path[path].metadata_path),
                        f"the gang's pods will carry no {GANG_LABEL} label ({why}): the gang alerts cannot see them", FIX)


RULE = Rule(
    code="GANG701", name="gang-without-identity", family="observability", severity=Severity.WARNING,
    summary="A gang's pods will carry no gpufleet.dev/gang label, so the gang alerts cannot see it.",
    fix=FIX, kinds=tuple(k for k in WORKLOAD_KINDS if k != ("", "Pod")), check=check, doc=__doc__ or "",
    predicts=O.NOT_JUDGED,  # observability: the engines do not read the label
)
