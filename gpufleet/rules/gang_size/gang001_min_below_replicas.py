"""GANG001 min-below-replicas: a synchronous gang may start with only part of its pods.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A gang minimum below the number of pods the gang runs:

- Volcano Job: an explicit, non-zero `spec.minAvailable` below the pods the job starts
  with, the sum of the `replicas` of the tasks without `dependsOn` (unset or 0 is fine
  here: Volcano's webhook turns it into the sum of the task minimums), and a task
  `minAvailable` below that task's `replicas`. A task that `dependsOn` others (an MPI
  launcher waiting for its workers) gets its pods only once those run, so it is not
  counted: with 2 workers and such a launcher, `minAvailable: 2` is the whole gang and
  the fix never proposes 3, which deadlocks (GANG002);
- Kubeflow jobs (PyTorchJob, MPIJob, ...): `spec.runPolicy.schedulingPolicy.minAvailable`
  below the sum of the replicas;
- Volcano and scheduler-plugins PodGroups: `spec.minMember` below the pods of the same
  run that join the group (`scheduling.k8s.io/group-name`, `scheduling.x-k8s.io/pod-group`);
- Kueue plain-pod groups: `kueue.x-k8s.io/pod-group-total-count` below the pods of the
  run labelled with that `pod-group-name`;
- Kubernetes' own gang scheduling (`scheduling.k8s.io`, facts at kubernetes v1.37.2 in
  `gpufleet/kubetypes/workload_api.py`): a batch Job's
  `spec.scheduling.schedulingPolicy.gang.minCount` below its `parallelism` (the Job controller
  copies it into the Workload and PodGroup it creates); a PodGroup's
  `spec.schedulingPolicy.gang.minCount` below the pods of the run that join it
  (`spec.schedulingGroup.podGroupName`); a Workload's `podGroupTemplates[i]` gang `minCount`
  below the pods of the run's PodGroups made from that template, or the `parallelism` of the
  Job its `spec.controllerRef` names. kube-scheduler's GangScheduling plugin binds the group
  once `minCount` pods fit (`gangscheduling.go` Permit).

Skipped for objects annotated `gpufleet.dev/elastic: "true"` and for PyTorchJobs with an
`elasticPolicy`: elastic trainers are built to run with fewer ranks. Volcano's webhook
accepts every one of these values; this rule adds the check upstream lacks.

Why it is unsafe

The gang scheduler binds the job as soon as the minimum fits. A data-parallel NCCL or MPI
job needs every rank: the ranks that started wait in the rendezvous (holding their GPUs)
for peers that are still pending, until a timeout kills them or forever. Two such
partial gangs can deadlock a cluster (volcano#3373).

Example

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  minAvailable: 2
  tasks:
    - name: worker
      replicas: 8
```

Preferred form

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  minAvailable: 8   # or leave it unset
  tasks:
    - name: worker
      replicas: 8
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import set_value
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm
from gpufleet.rules.gang_size import _cel as C
from gpufleet.rules.gang_size._helpers import KINDS, Minimum, declared_minimums
from gpufleet.rules.gangs import is_elastic
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.cel import elastic


def _below(obj: Mapping[str, Any], ctx: CheckContext) -> list[Minimum]:
    view = ctx.run.view(obj)
    if view is None or is_elastic(view):
        return []
    return [m for m in declared_minimums(obj, ctx) if m.minimum < m.count]


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    for m in _below(obj, ctx):
        yield Violation(
            m.path,
            f"gang minimum {m.minimum} is below the {m.count} {m.counted}: the scheduler may start the gang with "
            f"only {m.minimum} pods, and a synchronous job then waits for the missing ranks",
            f"set {m.path} to {m.count}, or annotate gpufleet.dev/elastic: \"true\" if the job really is elastic",
        )


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    for m in _below(obj, ctx):
        set_value(obj, m.path, m.fixed)
    return obj


_WHY = ": the scheduler may start the gang with only part of its pods, and a synchronous job then waits for the missing ranks"
_ELASTIC_FIX = ", or annotate gpufleet.dev/elastic: \"true\" if the job really is elastic"
_TASK_BAD = f"(has(t.minAvailable) && !has(t.partitionPolicy) && t.minAvailable < {C.TASK_PODS})"

CEL = CelForm(
    resources=C.COUNTED,
    variables=(*C.COUNTS, ("elastic", elastic())),
    checks=(
        CelCheck(
            "variables.elastic || variables.jobMinimum == 0 || variables.jobMinimum >= variables.starting",
            "'spec.minAvailable'",
            f"'gang minimum ' + string(variables.jobMinimum) + ' is below the ' + string(variables.starting) + "
            f"' pods the job starts with{_WHY}'",
            f"'set spec.minAvailable to ' + string(variables.starting) + '{_ELASTIC_FIX}'",
        ),
        CelCheck(
            f"variables.elastic || !variables.tasks.exists(t, {_TASK_BAD})",
            C.task_index(_TASK_BAD),
            f"'a task minAvailable is below its replicas{_WHY}'",
            f"'set the task minAvailable to its replicas{_ELASTIC_FIX}'",
        ),
        CelCheck(
            "variables.elastic || has(object.spec.elasticPolicy) || variables.kubeflowMinimum < 0 "
            "|| variables.kubeflowMinimum >= variables.kubeflowPods",
            f"'{C.KUBEFLOW_MIN_PATH}'",
            f"'gang minimum ' + string(variables.kubeflowMinimum) + ' is below the ' + string(variables.kubeflowPods) "
            f"+ ' pods of the job (sum of the replicas){_WHY}'",
            f"'set {C.KUBEFLOW_MIN_PATH} to ' + string(variables.kubeflowPods) + '{_ELASTIC_FIX}'",
        ),
        CelCheck(
            "variables.elastic || variables.jobGangMinimum < 0 || variables.jobGangMinimum >= variables.parallelism",
            f"'{C.JOB_MIN_PATH}'",
            f"'gang minimum ' + string(variables.jobGangMinimum) + ' is below the ' + string(variables.parallelism) "
            f"+ ' pods the Job runs at once (parallelism){_WHY}'",
            f"'set {C.JOB_MIN_PATH} to ' + string(variables.parallelism) + '{_ELASTIC_FIX}'",
        ),
    ),
    note=C.NOTE,
)


RULE = Rule(
    code="GANG001",
    name="min-below-replicas",
    family="gang-size",
    severity=Severity.ERROR,
    summary="The gang minimum is below the gang's pod count, so a synchronous job can start partially.",
    fix="raise the gang minimum to the total pod count (or mark the job elastic)",
    kinds=KINDS,
    check=check,
    remediate=remediate,
    needs_objects=True,
    doc=__doc__ or "",
    cel=CEL,
    predicts=O.NEVER_WHOLE,  # a gang started below its size waits partly bound, or never starts whole
)
