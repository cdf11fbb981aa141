"""GANG807 partition-breach: pods that could land on a pool dedicated to another team.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; only with a fleet context whose model dedicates a pool (`dedicatedTo`).

What it checks

A pod template in a namespace whose team is not the pool's owner (or in no team's
namespace) that

- tolerates the taint `gpufleet.dev/dedicated` of another team: a toleration with that
  key and another team's value, with that key and `operator: Exists`, or a key-less
  `operator: Exists` toleration (it tolerates every taint);
- or selects another team's dedicated nodes (`nodeSelector` `gpufleet.dev/dedicated: <other team>`).

Why it is unsafe

Static partitioning is chosen when isolation is a compliance requirement: the taint is
what keeps every other team off the owner's nodes (gpufleet's validation keeps their
quota off). A pod that tolerates it can be scheduled there by any scheduler, sharing
nodes and GPUs with the team the partition isolates.

Example

```yaml
metadata: {namespace: research}
spec:
  template:
    spec:
      tolerations: [{operator: Exists}]
```

Preferred form

```yaml
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.coscheduling._helpers import MEMBER_KINDS
from gpufleet.workloads import as_list, as_map
from gpufleet.workloads.types import is_map

KEY = "gpufleet.dev/dedicated"
KINDS = (*MEMBER_KINDS, ("batch.volcano.sh", "Job"))


def _breach(toleration: Any, others: set[str]) -> str | None:
    if not is_map(toleration):
        return None
    key, operator = toleration.get("key"), toleration.get("operator", "Equal")
    if not key and operator == "Exists":
        return "tolerates every taint, including the dedicated pools'"
    if key == KEY and (operator == "Exists" or toleration.get("value") in others):
        whose = "any team" if operator == "Exists" else f"team {toleration.get('value')!r}"
        return f"tolerates the dedicated-pool taint of {whose}"
    return None


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    fleet = ctx.fleet
    if view is None or fleet is None:
        return
    team = fleet.team_for_namespace(view.namespace)
    others = {p.dedicated_to for p in fleet.pools if p.dedicated_to and (team is None or p.dedicated_to != team.name)}
    if not others:
        return
    fix = "tolerate only your own pools' taints; dedicated pools are their team's alone"
    for template in view.templates:
        for i, toleration in enumerate(as_list(template.spec.get("tolerations"))):
            why = _breach(toleration, others)
            if why:
                yield Violation(template.spec_path.child("tolerations").index(i), f"the pods {why}: they may land on "
                                f"{', '.join(sorted(others))}'s dedicated nodes", fix)
        selected = as_map(template.spec.get("nodeSelector")).get(KEY)
        if selected in others:
            yield Violation(template.spec_path.child("nodeSelector").key(KEY),
                            f"the pods select team {selected!r}'s dedicated nodes", "remove the selector; run on your own team's pools")


RULE = Rule(
    code="GANG807", name="partition-breach", family="partition", severity=Severity.ERROR,
    summary="Pods tolerate or select the nodes of a pool dedicated to another team.",
    fix="tolerate and select only your own team's pools",
    kinds=KINDS, check=check, needs_fleet=True, doc=__doc__ or "",
)
