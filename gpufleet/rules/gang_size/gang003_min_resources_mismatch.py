"""GANG003 min-resources-mismatch: a gang's declared minResources is not what its pods request.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

An explicit `minResources` that differs from the sum of the gang's pod requests
(replicas x per-pod requests, summed as the scheduler, Kueue and Volcano sum them:
a container's limit stands in for a missing request, sidecars run beside the
containers, an init container counts when it is larger, and the pod's overhead is added):

- Kubeflow jobs: `spec.runPolicy.schedulingPolicy.minResources` against all replicas;
- Volcano and scheduler-plugins PodGroups: `spec.minResources` against the pods of the
  run that join the group.

Only full gangs are compared (minimum unset or equal to the pod count; GANG001 reports
the others). Each resource named in `minResources` must equal the sum, and every
extended resource the pods request (`nvidia.com/gpu`, ...) must be named. An absent
`minResources` is not flagged: the training operator computes it, and Volcano admits a
PodGroup without one unchecked. Nothing upstream compares the two.

Severity: **warning**. The gang plugin still refuses to bind fewer than `minMember`
pods, so a wrong `minResources` cannot by itself start a partial gang. It misleads
admission: too low, and Volcano's enqueue lets in gangs the queue cannot hold (their
pods are created and sit Pending, eating the overcommit budget); too high, or a
missing GPU entry, and a gang waits for, or ignores, capacity it does not need.

Why it is unsafe

Volcano's enqueue step admits a PodGroup by comparing `minResources` with the queue's
remaining capability; it never looks at the pods. A `minResources` that understates
the gang (typically leaving out the GPUs) admits more gangs than the queue can place,
and every admitted gang then holds pods Pending; one that overstates it can keep a gang
out of a queue that could run it.

Example

```yaml
apiVersion: kubeflow.org/v1
kind: PyTorchJob
spec:
  runPolicy:
    schedulingPolicy:
      minResources: {cpu: "8"}        # the 4 pods request 32 GPUs, not listed
  pytorchReplicaSpecs:
    Worker:
      replicas: 4
      template:
        spec:
          containers:
          - resources: {requests: {cpu: "2", nvidia.com/gpu: "8"}}
```

Preferred form

```yaml
      minResources: {cpu: "8", nvidia.com/gpu: "32"}   # or leave minResources out
```
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterator, Mapping

from gpufleet.kubetypes import quantity
from gpufleet.kubetypes.fieldpath import FieldPath, get_value, set_value
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.workloads import WorkloadView
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.resources import pod_requests
from gpufleet.workloads.types import SPEC

KUBEFLOW = ("PyTorchJob", "MPIJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob")
BINARY = ("memory", "ephemeral-storage", "hugepages-")


def _sum(views: list[WorkloadView]) -> dict[str, Decimal]:
    total: dict[str, Decimal] = {}
    for view in views:
        for template in view.templates:
            for name, value in pod_requests(template.spec).items():
                total[name] = total.get(name, Decimal(0)) + value * template.replicas
    return total


_KUBEFLOW_MIN = SPEC.child("runPolicy", "schedulingPolicy", "minResources")
_MIN = SPEC.child("minResources")


def _target(obj: Mapping[str, Any], ctx: CheckContext) -> tuple[FieldPath, dict[str, Decimal]] | None:
    """(path of minResources, expected sums) or None when not comparable."""
    view = ctx.run.view(obj)
    if view is None:
        return None
    if view.group == "kubeflow.org":
        if view.gang_min not in (None, view.total_pods):
            return None
        return _KUBEFLOW_MIN, _sum([view])
    members = ctx.run.members(view.namespace, view.name or "") if ctx.objects else []
    if not members or view.gang_min != sum(m.total_pods for m in members):
        return None
    return _MIN, _sum(members)


def _declared(obj: Mapping[str, Any], path: FieldPath) -> Mapping[str, Any] | None:
    declared = get_value(obj, path)
    return declared if isinstance(declared, Mapping) else None


def _mismatches(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[tuple[FieldPath, str, Decimal | None, Decimal]]:
    """(path, resource, declared or None when unparsable/missing, expected) per mismatch."""
    target = _target(obj, ctx)
    declared = _declared(obj, target[0]) if target else None
    if target is None or declared is None:
        return
    path, expected = target
    for name, raw in declared.items():
        want = expected.get(str(name), Decimal(0))
        try:
            have: Decimal | None = quantity.parse(raw)
        except quantity.QuantityError:
            have = None
        if have != want:
            yield path.key(str(name)), str(name), have, want
    for name, want in expected.items():
        if "/" in name and want > 0 and name not in declared:
            yield path, name, None, want


def _fmt(name: str, value: Decimal) -> str:
    return quantity.fmt(value, binary=name.startswith(BINARY))


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    for path, name, have, want in _mismatches(obj, ctx):
        stated = (
            "does not list it"
            if have is None and path.last == "minResources"
            else (f"says {_fmt(name, have)}" if have is not None else "is not a quantity")
        )
        yield Violation(
            path,
            f"minResources {stated} for {name}, but the gang's pods request {_fmt(name, want)} "
            "in total; the scheduler admits the gang on the wrong figure",
            f"set minResources[{name}] to {_fmt(name, want)} (or drop minResources)",
        )


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    target = _target(obj, ctx)
    fixes = list(_mismatches(obj, ctx))
    if target is None or not fixes:
        return obj
    declared = get_value(obj, target[0])
    if not isinstance(declared, dict):
        declared = {}
        set_value(obj, target[0], declared)
    for _, name, _, want in fixes:
        if want == 0:
            declared.pop(name, None)
        else:
            declared[name] = _fmt(name, want)
    return obj


RULE = Rule(
    code="GANG003",
    name="min-resources-mismatch",
    family="gang-size",
    severity=Severity.WARNING,
    summary="A gang's minResources differs from what its pods request, so admission uses the wrong figure.",
    fix="make minResources the sum of the gang's pod requests (or leave it out)",
    kinds=(
        ("scheduling.volcano.sh", "PodGroup"),
        ("scheduling.x-k8s.io", "PodGroup"),
        *(("kubeflow.org", kind) for kind in KUBEFLOW),
    ),
    check=check,
    remediate=remediate,
    needs_objects=True,
    doc=__doc__ or "",
    predicts=O.NEVER_WHOLE,  # admission counts the wrong figure: never admitted, or admitted short
)
