"""GANG104 undeclared-queue: a workload names a queue the fleet model does not give its team.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; only with a fleet context.

What it checks

- A `kueue.x-k8s.io/queue-name` label naming a LocalQueue the model does not declare
  in the object's namespace (without a namespace: in no namespace at all).
- A Volcano queue (Volcano Job or PodGroup `spec.queue`, Kubeflow
  `runPolicy.schedulingPolicy.queue`, `scheduling.volcano.sh/queue-name`) that the
  model does not declare, or that belongs to another team than the namespace's.

Why it is unsafe

Kueue keeps a workload whose LocalQueue does not exist pending with no event a user
sees (kueue.md §6): the gang silently never starts. Volcano has no namespace-to-queue
authorization at all (volcano.md §8): any namespace can submit to any open leaf
queue, so a job naming another team's queue (or `default`) runs on capacity the model
gave someone else and escapes its own team's quota.

Example

```yaml
metadata:
  namespace: research
  labels:
    kueue.x-k8s.io/queue-name: reserch
```

Preferred form

```yaml
metadata:
  namespace: research
  labels:
    kueue.x-k8s.io/queue-name: research   # the LocalQueue the model declares there
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet import workloads
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.routing._helpers import POD_GROUP_KINDS, WORKLOAD_KINDS, team
from gpufleet.workloads import WorkloadView, label_path
from gpufleet.workloads.types import SPEC


def _local_queue(view: WorkloadView, ctx: CheckContext) -> Iterator[Violation]:
    fleet, queue = ctx.fleet, view.queue_label
    if fleet is None or not queue:
        return
    declared = fleet.local_queues()
    if view.namespace is None:
        ok = any(name == queue for _, name in declared)
    else:
        ok = (view.namespace, queue) in declared
    if not ok:
        team_ctx = team(view, ctx)
        hint = f"team {team_ctx.name!r} uses {team_ctx.local_queue!r}" if team_ctx and team_ctx.local_queue else \
            "declare it in the fleet model"
        where = f" in namespace {view.namespace!r}" if view.namespace else ""
        yield Violation(label_path(fleet.queue_label),
                        f"LocalQueue {queue!r} is not declared{where} by the fleet model: Kueue leaves the "
                        "workload pending forever", f"use a declared LocalQueue ({hint})")


def _volcano_queue(view: WorkloadView, ctx: CheckContext) -> Iterator[Violation]:
    fleet, queue = ctx.fleet, view.volcano_queue
    if fleet is None or not queue:
        return
    path = view.volcano_queue_path or SPEC.child("queue")
    team_ctx = team(view, ctx)
    if queue not in fleet.volcano_queues():
        yield Violation(path, f"Volcano queue {queue!r} is not declared by the fleet model: the job is rejected, or "
                              "runs outside every team's quota", "use the team's Volcano queue from the fleet model")
    elif team_ctx is not None and team_ctx.volcano_queue != queue:
        own = repr(team_ctx.volcano_queue) if team_ctx.volcano_queue else "none"
        yield Violation(path, f"Volcano queue {queue!r} belongs to another team than {team_ctx.name!r} (its queue: "
                              f"{own}); Volcano does not check who submits to a queue",
                        "submit to your own team's Volcano queue")


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = workloads.view(obj)
    if view is not None:
        yield from _local_queue(view, ctx)
        yield from _volcano_queue(view, ctx)


RULE = Rule(
    code="GANG104", name="undeclared-queue", family="routing", severity=Severity.ERROR,
    summary="A workload names a LocalQueue or Volcano queue the fleet model does not give its team.",
    fix="name the queue the fleet model declares for the namespace's team",
    kinds=(*WORKLOAD_KINDS, *POD_GROUP_KINDS), check=check, needs_fleet=True, doc=__doc__ or "",
)
