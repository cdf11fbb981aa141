"""GANG005 partition-minimum-below-partitions: a Volcano partitioned task starts with a fraction of its pods.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A Volcano Job task with a `partitionPolicy` whose `minPartitions` is set and below
`totalPartitions`, in a job that is not elastic (`gpufleet.dev/elastic: "true"`), when
the job's own `spec.minAvailable` is unset or 0 (an explicit job minimum below the pods
is GANG001's). Volcano's job webhook (v1.15 `mutate_job.go`, `mutateSpec`) writes the
task's `minAvailable` as `minPartitions × partitionSize`, and an unset job
`minAvailable` becomes the sum of the task minimums; the job controller copies both into
the PodGroup (`minMember`, `minTaskMember`). The webhook refuses a task `minAvailable`
other than `minPartitions × partitionSize`, so the task minimum cannot be raised alone.

Why it is unsafe

The gang plugin binds the job once `minPartitions` partitions fit: a fixed-size trainer of
`totalPartitions × partitionSize` ranks starts with a fraction of them, and the ranks that
started hold their GPUs in the rendezvous waiting for peers that may never be placed
(the same failure as GANG001, reached through a field that reads like topology).

Example

```yaml
tasks:
  - name: worker
    replicas: 8
    partitionPolicy: {totalPartitions: 4, partitionSize: 2, minPartitions: 2}
```

Preferred form

```yaml
    partitionPolicy: {totalPartitions: 4, partitionSize: 2, minPartitions: 4}   # or unset
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath, set_value
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm, resources
from gpufleet.rules.gangs import is_elastic
from gpufleet.workloads import as_int, as_list, as_map
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.cel import elastic
from gpufleet.workloads.types import SPEC


def _partial(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[tuple[int, int, int, int, int]]:
    """(task index, minPartitions, totalPartitions, partitionSize, replicas) of each partial partitioned task."""
    view = ctx.run.view(obj)
    spec = as_map(obj.get("spec"))
    if view is None or is_elastic(view) or as_int(spec.get("minAvailable")):
        return
    for i, task in enumerate(as_list(spec.get("tasks"))):
        policy = as_map(as_map(task).get("partitionPolicy"))
        least, total, size = (as_int(policy.get(k)) for k in ("minPartitions", "totalPartitions", "partitionSize"))
        if least and total and size and 0 < least < total:
            yield i, least, total, size, as_int(as_map(task).get("replicas")) or total * size


def _at(i: int) -> FieldPath:
    return SPEC.child("tasks").index(i).child("partitionPolicy", "minPartitions")


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    for i, least, total, size, replicas in _partial(obj, ctx):
        yield Violation(
            _at(i),
            f"minPartitions {least} of {total}: Volcano's webhook sets the task's minAvailable (and the job's, left unset) "
            f"to {least}×{size} = {least * size}, so the scheduler starts this fixed-size job with {least * size} of its "
            f"{replicas} pods and they wait in the rendezvous for the rest",
            f"set minPartitions to {total} (or remove it, and the task minAvailable with it), or annotate "
            "gpufleet.dev/elastic: \"true\" if the job really runs on part of its partitions",
        )


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    for i, _, total, size, _ in list(_partial(obj, ctx)):
        set_value(obj, _at(i), total)
        task = obj["spec"]["tasks"][i]  # a map: _partial read its partitionPolicy
        if "minAvailable" in task:  # the webhook requires minAvailable == minPartitions × partitionSize
            task["minAvailable"] = total * size
    return obj


_LEAST, _TOTAL, _SIZE = (f"t.partitionPolicy.{k}" for k in ("minPartitions", "totalPartitions", "partitionSize"))
_PARTIAL = (
    f"(has(t.partitionPolicy) && has({_LEAST}) && has({_TOTAL}) && has({_SIZE}) "
    f"&& {_LEAST} > 0 && {_LEAST} < {_TOTAL} && {_SIZE} != 0)"
)
_STARTS = f"string({_LEAST} * {_SIZE})"


def _of_task(expression: str) -> str:
    """CEL: ``expression``, reading ``t``, on the first partial task."""
    return f"[variables.tasks[variables.partial]].map(t, {expression})[0]"


CEL = CelForm(
    resources=resources(("batch.volcano.sh", "jobs")),
    variables=(
        ("elastic", elastic()),
        ("tasks", "has(object.spec.tasks) ? object.spec.tasks : []"),
        ("jobMinimum", "has(object.spec.minAvailable) ? object.spec.minAvailable : 0"),
        ("partial", f"variables.tasks.map(t, {_PARTIAL}).indexOf(true)"),
    ),
    checks=(
        CelCheck(
            "variables.elastic || variables.jobMinimum != 0 || variables.partial < 0",
            "'spec.tasks[' + string(variables.partial) + '].partitionPolicy.minPartitions'",
            _of_task(
                f"'minPartitions ' + string({_LEAST}) + ' of ' + string({_TOTAL}) + ': Volcano\\'s webhook sets the "
                f"task\\'s minAvailable (and the job\\'s, left unset) to ' + string({_LEAST}) + '×' + string({_SIZE}) "
                f"+ ' = ' + {_STARTS} + ', so the scheduler starts this fixed-size job with ' + {_STARTS} + ' of its ' "
                f"+ string(has(t.replicas) && t.replicas != 0 ? t.replicas : {_TOTAL} * {_SIZE}) "
                "+ ' pods and they wait in the rendezvous for the rest'"
            ),
            _of_task(
                f"'set minPartitions to ' + string({_TOTAL}) + ' (or remove it, and the task minAvailable with it), or "
                "annotate gpufleet.dev/elastic: \"true\" if the job really runs on part of its partitions'"
            ),
        ),
    ),
)


RULE = Rule(
    code="GANG005",
    name="partition-minimum-below-partitions",
    family="gang-size",
    severity=Severity.ERROR,
    summary="A Volcano task's partitionPolicy.minPartitions below totalPartitions starts a fixed-size job partially.",
    fix="set minPartitions to totalPartitions (or mark the job elastic)",
    kinds=(("batch.volcano.sh", "Job"),),
    check=check,
    remediate=remediate,
    doc=__doc__ or "",
    cel=CEL,
    predicts=O.NEVER_WHOLE,  # a partition minimum below the partitions starts part of the job
)
