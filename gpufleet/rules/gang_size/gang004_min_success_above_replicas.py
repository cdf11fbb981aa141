"""GANG004 min-success-above-replicas: a Volcano Job that can never complete.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A Volcano Job whose `spec.minSuccess` is above the sum of its task `replicas`.
Volcano's webhook checks neither this nor anything else about minSuccess beyond
`minimum: 1` in the CRD (volcano.md §3, "Not checked anywhere").

Why it is unsafe

Volcano marks the Job Completed once `minSuccess` pods have succeeded. With fewer pods
than that, success is unreachable: when every pod has finished the Job is neither
Completed nor Failed, it keeps its PodGroup (and, depending on the queue, its
reserved resources) and anything waiting on its completion (a JobFlow, a pipeline)
waits forever.

Example

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  minSuccess: 10
  tasks:
    - name: worker
      replicas: 8
```

Preferred form

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  minSuccess: 8    # or leave it unset
  tasks:
    - name: worker
      replicas: 8
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm, resources
from gpufleet.rules.gang_size import _cel as C
from gpufleet.workloads import as_int, as_map
from gpufleet.workloads import outcomes as O


def _excess(obj: Mapping[str, Any], ctx: CheckContext) -> tuple[int, int] | None:
    view = ctx.run.view(obj)
    min_success = as_int(as_map(obj.get("spec")).get("minSuccess"))
    if view is None or min_success is None or min_success <= view.total_pods:
        return None
    return min_success, view.total_pods


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    excess = _excess(obj, ctx)
    if excess:
        yield Violation(
            FieldPath.of("spec", "minSuccess"),
            f"minSuccess {excess[0]} is above the {excess[1]} pods of the job: it can never complete",
            f"set spec.minSuccess to {excess[1]} or remove it",
        )


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    excess = _excess(obj, ctx)
    if excess:
        obj["spec"]["minSuccess"] = excess[1]
    return obj


CEL = CelForm(
    resources=resources(("batch.volcano.sh", "jobs")),
    variables=C.VOLCANO_VARIABLES,
    checks=(
        CelCheck(
            "!has(object.spec.minSuccess) || object.spec.minSuccess <= variables.total",
            "'spec.minSuccess'",
            "'minSuccess ' + string(object.spec.minSuccess) + ' is above the ' + string(variables.total) + "
            "' pods of the job: it can never complete'",
            "'set spec.minSuccess to ' + string(variables.total) + ' or remove it'",
        ),
    ),
)


RULE = Rule(
    code="GANG004",
    name="min-success-above-replicas",
    family="gang-size",
    severity=Severity.ERROR,
    summary="A Volcano Job's minSuccess is above its pod count, so it can never complete.",
    fix="lower spec.minSuccess to the total pod count (or remove it)",
    kinds=(("batch.volcano.sh", "Job"),),
    check=check,
    remediate=remediate,
    doc=__doc__ or "",
    cel=CEL,
    predicts=O.NOT_JUDGED,  # completion is not watched: a trial ends once every rank runs
)
