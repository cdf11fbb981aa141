"""GANG601 crd-schema-violation: an object the API server would reject against its CRD.

Called by the rule engine through the registry; runs with the CRD schemas in force
(``gpufleet.settings.load_crds`` sets ``CheckContext.crds`` to a ``gpufleet.crdschema.CrdSet``:
the schemas gpufleet carries, `--crds DIR`'s on top) and stays quiet with `--no-crds`.

What it checks

Every object whose kind one of the loaded CRDs defines, against that CRD's served
version: the `openAPIV3Schema` (types, enums, formats, required fields, minimum and
maximum, int-or-string) and the CEL rules in `x-kubernetes-validations`, as
`CrdSet.validate` reports them, each at its exact path. Fields the API server would
silently drop are GANG602's, not reported twice here. Objects of kinds no loaded CRD
defines are skipped.

Why it is unsafe

A Volcano Job, JobSet or ClusterQueue the API server rejects fails at `kubectl apply` or
`pulumi up`, often halfway through a multi-object rollout: the queue exists but its
ClusterQueue does not, or the JobSet's PodGroup was created and its workers were not.
Checking against the real CRDs before applying catches it at review time.

Example

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  minAvailable: "four"     # the CRD says integer
```

Preferred form

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  minAvailable: 4
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.rules.api import EVERY_KIND, CheckContext, Rule, Severity, Violation
from gpufleet.rules.schema._helpers import pruned_paths, schemas_for, violation
from gpufleet.workloads import outcomes as O


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    crds = schemas_for(obj, ctx)
    if crds is None:
        return
    pruned = pruned_paths(crds, obj)
    for issue in crds.validate(obj):
        if issue.path not in pruned:
            yield violation(issue, "make the field match the CRD schema")


RULE = Rule(
    code="GANG601",
    name="crd-schema-violation",
    family="schema",
    severity=Severity.ERROR,
    summary="An object violates its CRD's openAPIV3Schema or CEL rules; the API server would reject it.",
    fix="make the object match its CRD schema (see the message for the field and the rule)",
    kinds=EVERY_KIND,
    check=check,
    needs_crds=True,
    doc=__doc__ or "",
    predicts=frozenset({O.REFUSED}),  # the API server refuses it
)
