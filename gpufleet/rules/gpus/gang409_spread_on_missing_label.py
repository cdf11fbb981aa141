"""GANG409 spread-on-missing-label: a hard topology spread on a node label no node of the pools carries.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; needs a fleet context (`gpufleet lint --fleet MODEL`).

What it checks

Each `topologySpreadConstraints` entry of a gang's pod template with
`whenUnsatisfiable: DoNotSchedule`, against the pools the template may land on
(`gpufleet.rules.demands`): when no node of any of them carries its `topologyKey` (the
labels the model says the nodes carry: `nodeLabels`, `topologyLevels`, and the ones the
kubelet sets on every node: `kubernetes.io/hostname`, `kubernetes.io/os`,
`kubernetes.io/arch`), it is reported. A label a cloud provider sets on its nodes
(`topology.kubernetes.io/zone`) counts only when the model lists it.

Why it is unsafe

kube-scheduler's PodTopologySpread filter (and Volcano's, which wraps it) rejects every
node without the constraint's key ("node(s) didn't match pod topology spread constraints
(missing required label)"), so no pod of the gang is ever placed. Under Kueue the gang is
admitted and holds its quota while its pods stay Pending; under a gang scheduler it never
binds. Seen on the sandbox: a Volcano Job spreading on `topology.kubernetes.io/zone` over
nodes without it never bound.

Example

```yaml
topologySpreadConstraints:
- maxSkew: 1
  topologyKey: topology.kubernetes.io/zone   # no node of the pool carries it
  whenUnsatisfiable: DoNotSchedule
  labelSelector: {matchLabels: {app: trainer}}
```

Preferred form

```yaml
# a key the nodes carry (a topology level of the pool), or ScheduleAnyway
topologySpreadConstraints:
- maxSkew: 1
  topologyKey: kubernetes.io/hostname
  whenUnsatisfiable: DoNotSchedule
  labelSelector: {matchLabels: {app: trainer}}
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.rules import gangs
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.demands import template_pools
from gpufleet.workloads import WORKLOAD_KINDS, as_list, as_map
from gpufleet.workloads import outcomes as O


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    found = ctx.run.view(obj)
    if found is None or ctx.fleet is None or not ctx.fleet.pools or not gangs.is_gang(found, ctx):
        return
    for template in found.templates:
        constraints = as_list(template.spec.get("topologySpreadConstraints"))
        if template.replicas <= 0 or not constraints:
            continue
        pools, how = template_pools(ctx, found, template)
        for i, constraint in enumerate(constraints):
            constraint = as_map(constraint)
            key = constraint.get("topologyKey")
            if constraint.get("whenUnsatisfiable") != "DoNotSchedule" or not isinstance(key, str) or not key:
                continue
            if not pools or any(p.carries(key) for p in pools):
                continue
            names = ", ".join(p.name for p in pools)
            yield Violation(
                template.spec_path.child("topologySpreadConstraints").index(i).child("topologyKey"),
                f"the pods must spread over {key} (DoNotSchedule), but no node of the pools {how} ({names}) carries "
                f"that label: kube-scheduler filters out every node and no pod of the gang is ever placed",
                f"spread over a label the nodes carry (one of the pool's topologyLevels or kubernetes.io/hostname), "
                f"use whenUnsatisfiable: ScheduleAnyway, or, if the nodes do carry {key}, add it to the pool's "
                f"topologyLevels in the model",
            )


RULE = Rule(
    code="GANG409",
    name="spread-on-missing-label",
    family="gpus",
    severity=Severity.ERROR,
    summary="A hard topology spread constraint names a node label no node of the gang's pools carries.",
    fix="spread over a label the pools' nodes carry, or make the constraint ScheduleAnyway",
    kinds=tuple(sorted(WORKLOAD_KINDS)),
    check=check,
    needs_fleet=True,
    doc=__doc__ or "",
    predicts=O.NEVER_WHOLE,  # no node passes the filter
)
