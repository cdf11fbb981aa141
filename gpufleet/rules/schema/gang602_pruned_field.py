"""GANG602 pruned-field: a field the API server would silently drop from a custom object.

Called by the rule engine through the registry; runs with the CRD schemas in force
(``gpufleet.settings.load_crds``: the ones gpufleet carries, `--crds DIR`'s on top) and
stays quiet with `--no-crds`.

What it checks

Every object whose kind one of the loaded CRDs defines, for fields its structural
schema does not declare (outside `x-kubernetes-preserve-unknown-fields`), as
`CrdSet.pruned_fields` reports them, each at its exact path.

Why it is unsafe

The API server accepts such an object and prunes the unknown field without an error.
A misspelt or misplaced gang setting then vanishes: the upstream Volcano example
`elastic-job.yaml` writes `priorityClass` where the PodSpec field is
`priorityClassName`, so its pods run without the intended priority; a
`minAvailable` written one level too deep leaves the gang at the default; a
`waitForPodsReady` typo leaves the safety net off. Nothing fails, nothing warns.

Example

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  tasks:
  - name: worker
    replicas: 4
    minAvaliable: 4     # misspelt: pruned
```

Preferred form

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  tasks:
  - name: worker
    replicas: 4
    minAvailable: 4
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.rules.api import EVERY_KIND, CheckContext, Rule, Severity, Violation
from gpufleet.rules.schema._helpers import schemas_for, violation
from gpufleet.workloads import outcomes as O


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    crds = schemas_for(obj, ctx)
    if crds is None:
        return
    for issue in crds.pruned_fields(obj):
        yield violation(issue, "remove the field or move it to where the schema declares it")


RULE = Rule(
    code="GANG602",
    name="pruned-field",
    family="schema",
    severity=Severity.ERROR,
    summary="An object carries a field its CRD does not declare; the API server silently drops it.",
    fix="remove the field, or fix its spelling or position so the schema declares it",
    kinds=EVERY_KIND,
    check=check,
    needs_crds=True,
    doc=__doc__ or "",
    predicts=O.NOT_JUDGED,  # the API server drops the field and accepts the object: what follows depends on the field
)
