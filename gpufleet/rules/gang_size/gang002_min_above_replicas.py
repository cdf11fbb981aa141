"""GANG002 min-above-replicas: a gang minimum no pod count can reach, so the gang never starts.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A gang minimum above the number of pods the gang runs (the same minimums as GANG001):

- Volcano Job `spec.minAvailable` above the sum of the task `replicas`, or a task
  `minAvailable` above its `replicas`. Volcano's webhook rejects both at CREATE; the
  rule reports them at `pulumi preview` / lint time instead of at deploy time.
  Volcano's webhook does not see the deadlock of a task that `dependsOn` others: its
  pods are created only once those run, so a job minimum counting them (explicit, or
  unset and defaulted by the webhook to the sum of every task's minimum) exceeds the
  pods the job starts with. The gang plugin refuses such a job ("Not enough valid
  tasks for gang-scheduling") and it stays Inqueue forever (observed on Volcano
  v1.14.1 with 2 workers and a dependent launcher at `minAvailable: 3`). The fix is the
  replicas of the tasks without `dependsOn`.
- Kubeflow `spec.runPolicy.schedulingPolicy.minAvailable` above the sum of the replicas
  (not checked upstream: the operator copies it into the PodGroup).
- PodGroup `spec.minMember` above the pods of the run that join the group (not checked
  upstream), when at least one member is in the run.
- Kueue `kueue.x-k8s.io/pod-group-total-count` above the pods of the group in the run,
  when at least two members are in the run (a single pod on its own, as the admission
  controller sees it, says nothing about its siblings).

Why it is unsafe

The scheduler waits until the minimum number of pods fits before binding any of them.
With fewer pods than the minimum that never happens: the job stays Pending forever
while holding its queue slot (and, under Kueue, its quota), with no error anywhere.

Example

```yaml
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: pg1}
spec:
  minMember: 3      # but only 2 pods carry scheduling.x-k8s.io/pod-group: pg1
```

Preferred form

```yaml
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: pg1}
spec:
  minMember: 2
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import set_value
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm
from gpufleet.rules.gang_size import _cel as C
from gpufleet.rules.gang_size._helpers import KINDS, Minimum, declared_minimums
from gpufleet.rules.invariant_minimum import message, unreachable
from gpufleet.workloads import WORKLOAD_KINDS
from gpufleet.workloads import outcomes as O


def _above(obj: Mapping[str, Any], ctx: CheckContext) -> list[Minimum]:
    return [m for m in declared_minimums(obj, ctx) if m.minimum > m.count and not (m.as_string and m.count < 2)]


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    for m in _above(obj, ctx):
        yield Violation(
            m.path,
            f"gang minimum {m.minimum} is above the {m.count} {m.counted}: the gang can never reach its minimum "
            "and stays Pending forever",
            f"set {m.path} to {m.count} (or add the missing pods)",
        )
    if declared_minimums(obj, ctx):
        return  # the minimums the manifest declares (or Volcano's webhook defaults) are judged above
    for u in unreachable(obj, ctx):
        text, fix = message(u)
        yield Violation(u.path, text, fix)


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    for m in _above(obj, ctx):
        set_value(obj, m.path, m.fixed)
    return obj


_WHY = ": the gang can never reach its minimum and stays Pending forever"
_TASK_BAD = f"(has(t.minAvailable) && !has(t.partitionPolicy) && t.minAvailable > {C.TASK_PODS})"
_UNSET_TOO_HIGH = (
    "variables.jobMinimum == 0 && variables.starting < variables.total && variables.defaultMinimum > variables.starting"
)

CEL = CelForm(
    resources=C.COUNTED,
    variables=C.COUNTS,
    checks=(
        CelCheck(
            "variables.jobMinimum == 0 || variables.jobMinimum <= variables.starting",
            "'spec.minAvailable'",
            f"'gang minimum ' + string(variables.jobMinimum) + ' is above the ' + string(variables.starting) + "
            f"' pods the job starts with{_WHY}'",
            "'set spec.minAvailable to ' + string(variables.starting)",
        ),
        CelCheck(
            f"!({_UNSET_TOO_HIGH})",
            "'spec.minAvailable'",
            "'gang minimum ' + string(variables.defaultMinimum) + ' (minAvailable is unset, and Volcano\\'s webhook "
            "sets it to the sum of every task\\'s minAvailable) is above the ' + string(variables.starting) + "
            f"' pods the job starts with{_WHY}'",
            "'set spec.minAvailable to ' + string(variables.starting)",
        ),
        CelCheck(
            f"!variables.tasks.exists(t, {_TASK_BAD})",
            C.task_index(_TASK_BAD),
            f"'a task minAvailable is above its replicas{_WHY}'",
            "'lower the task minAvailable to its replicas'",
        ),
        CelCheck(
            "variables.kubeflowMinimum <= variables.kubeflowPods",
            f"'{C.KUBEFLOW_MIN_PATH}'",
            "'gang minimum ' + string(variables.kubeflowMinimum) + ' is above the ' + string(variables.kubeflowPods) "
            f"+ ' pods of the job (sum of the replicas){_WHY}'",
            f"'set {C.KUBEFLOW_MIN_PATH} to ' + string(variables.kubeflowPods)",
        ),
        CelCheck(
            "variables.jobGangMinimum <= variables.parallelism",
            f"'{C.JOB_MIN_PATH}'",
            "'gang minimum ' + string(variables.jobGangMinimum) + ' is above the ' + string(variables.parallelism) "
            f"+ ' pods the Job runs at once (parallelism){_WHY}'",
            f"'set {C.JOB_MIN_PATH} to ' + string(variables.parallelism)",
        ),
    ),
    note=C.NOTE,
)


RULE = Rule(
    code="GANG002",
    name="min-above-replicas",
    family="gang-size",
    severity=Severity.ERROR,
    summary="The gang minimum is above the gang's pod count, so the gang can never be scheduled.",
    fix="lower the gang minimum to the total pod count",
    kinds=tuple(sorted({*KINDS, *WORKLOAD_KINDS})),  # every kind an operator may derive a minimum for
    check=check,
    remediate=remediate,
    needs_objects=True,
    doc=__doc__ or "",
    cel=CEL,
    predicts=frozenset({O.REFUSED}) | O.NEVER_WHOLE,  # Volcano's webhook refuses it, else its PodGroup is never ready
)
