"""GANG504 per-pod-preemption-priority-class: kube-scheduler preempts pod by pod for a gang.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A `scheduling.k8s.io/v1` PriorityClass whose `preemptionPolicy` is `PreemptLowerPriority`
(explicitly, or by omission: it is the default) and that gang workloads use. A class is
used by gang workloads when:

- a gang workload among the objects of the same run names it: a pod template's
  `priorityClassName`, Volcano Job/PodGroup `spec.priorityClassName`, or Kubeflow
  `runPolicy.schedulingPolicy.priorityClass`;
- the fleet context lists it under `priorityClasses`;
- it carries the label `gpufleet.dev/gang: "true"`.

Why it is unsafe

With `PreemptLowerPriority`, the default kube-scheduler preempts for each pending pod on
its own: it evicts lower-priority pods from one node so that one pod fits. It knows
nothing about gangs, so it takes single pods out of running training gangs (which then
stall or restart as a whole) and may still not fit the rest of the preemptor's gang.
Kueue (workload priority and ClusterQueue preemption) and Volcano (`gangpreempt`)
preempt whole workloads; kube-scheduler must not do it behind their back.

Kubernetes' own gang scheduling (1.36+, `GenericWorkload` on) changes only part of this:
a pod of a gang PodGroup preempts for its whole group (`defaultpreemption/default_preemption.go`
and `preemption/podgrouppreemption.go` at v1.37.2), and a victim in a PodGroup with
`disruptionMode: {all: {}}` is evicted with its group or not at all; every other victim
(a Kueue or Volcano gang's pod, a PodGroup left at the default `single`) is still taken pod by
pod (`preemption/types.go`). So the verdict stands; GANG207 reports native gangs left at
`single`.

Example

```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-high
value: 1000
```

Preferred form

```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-high
value: 1000
preemptionPolicy: Never   # queue-level, gang-aware preemption only
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.objects import reported_name
from gpufleet.kubetypes.vocab import GANG_LABEL
from gpufleet.rules import gangs
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.run import RunIndex
from gpufleet.workloads import WorkloadView, as_map
from gpufleet.workloads import outcomes as O


def referenced_classes(obj: Mapping[str, Any], found: WorkloadView | None, ctx: CheckContext) -> set[str]:
    """PriorityClass names a gang workload's pods run with (``found``: the view of ``obj``)."""
    if found is None or not gangs.is_gang(found, ctx):
        return set()
    spec = as_map(obj.get("spec"))
    names = {t.spec.get("priorityClassName") for t in found.templates}
    names.add(spec.get("priorityClassName"))
    names.add(as_map(as_map(spec.get("runPolicy")).get("schedulingPolicy")).get("priorityClass"))
    return {str(n) for n in names if n}


def users_by_class(run: RunIndex) -> dict[str, list[Mapping[str, Any]]]:
    """``{PriorityClass name: gang workloads using it}`` over a run's objects (once per run: ``run.derived``)."""
    users: dict[str, list[Mapping[str, Any]]] = {}
    ctx = CheckContext(fleet=run.fleet, objects=run.objects, run=run)
    for obj, found in zip(run.objects, run.views):
        for name in referenced_classes(obj, found, ctx):
            users.setdefault(name, []).append(obj)
    return users


def _why_gang(name: str, labels: Mapping[str, Any], ctx: CheckContext) -> str | None:
    if str(labels.get(GANG_LABEL, "")).lower() == "true":
        return f"it is labelled {GANG_LABEL}=true"
    if ctx.fleet is not None and any(pc.name == name for pc in ctx.fleet.priority_classes):
        return "the fleet context lists it for gang workloads"
    users = ctx.run.derived(users_by_class).get(name, [])
    if users:
        meta = as_map(users[0].get("metadata"))
        who = f"{users[0].get('kind')} {reported_name(meta) or ''}".strip()
        return f"gang workload {who} uses it" + (f" (and {len(users) - 1} more)" if len(users) > 1 else "")
    return None


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    policy = obj.get("preemptionPolicy")
    if policy not in (None, "PreemptLowerPriority"):
        return
    meta = as_map(obj.get("metadata"))
    why = _why_gang(str(meta.get("name", "")), as_map(meta.get("labels")), ctx)
    if why is None:
        return
    stated = (
        "preemptionPolicy is PreemptLowerPriority"
        if policy
        else "preemptionPolicy is unset (defaults to PreemptLowerPriority)"
    )
    yield Violation(
        FieldPath.of("preemptionPolicy"),
        f"{stated} and {why}: kube-scheduler will evict single pods out of other gangs to place one pod",
        "set preemptionPolicy: Never and leave preemption to Kueue or Volcano",
    )


RULE = Rule(
    code="GANG504",
    name="per-pod-preemption-priority-class",
    family="platform",
    severity=Severity.ERROR,
    summary="A PriorityClass used by gang workloads lets kube-scheduler preempt pod by pod, breaking other gangs.",
    fix="set preemptionPolicy: Never on PriorityClasses used by gang workloads",
    kinds=(("scheduling.k8s.io", "PriorityClass"),),
    check=check,
    needs_objects=True,
    doc=__doc__ or "",
    predicts=O.NOT_JUDGED,  # preemption needs contention, which a trial alone does not create
)
