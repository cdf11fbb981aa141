"""GANG103 missing-queue-label: a gang Kueue should admit carries no queue label.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A workload without the `kueue.x-k8s.io/queue-name` label (the fleet's `queueLabel`)
where Kueue is meant to admit it:

- with a fleet context: a gang (Volcano kinds and workloads aimed at Volcano aside) in
  a namespace whose team has a Kueue LocalQueue;
- without one: a Kueue-style gang, i.e. plain pods with `kueue.x-k8s.io/pod-group-name`,
  or any workload carrying other `kueue.x-k8s.io/` labels or annotations
  (`pod-group-total-count`, `job-min-parallelism`, `priority-class`, ...).

Kueue reads only the label (kueue.md §6); an annotation of the same name does not count.

Why it is unsafe

Without the label Kueue ignores the workload unless the manager runs with
`manageJobsWithoutQueueName` (or the namespace has a LocalQueue named `default`): the
job is not suspended, skips quota and waitForPodsReady, and its pods go straight to
the scheduler one by one. The gang then competes outside the quota system with gangs
that were admitted whole, which is how partial gangs and deadlocks come back.

Example

```yaml
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: train
  namespace: research
```

Preferred form

```yaml
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: train
  namespace: research
  labels:
    kueue.x-k8s.io/queue-name: research   # the team's LocalQueue
```

With a fleet context, the remediation adds the team's LocalQueue; without one the
queue is unknown and nothing is changed.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet import workloads
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.gang1_routing import VOLCANO_KINDS, WORKLOAD_KINDS, kueue_routed, team
from gpufleet.workloads import WorkloadView, keys, label_path

CODE = "GANG103"


def _queue_key(ctx: CheckContext) -> str:
    return ctx.fleet.queue_label if ctx.fleet is not None else keys.QUEUE_LABEL


def _kueue_hints(view: WorkloadView) -> list[str]:
    return sorted(k for source in (view.labels, view.annotations) for k in source
                  if isinstance(k, str) and k.startswith(keys.KUEUE_PREFIX) and k != keys.QUEUE_LABEL)


def _missing(view: WorkloadView | None, ctx: CheckContext) -> tuple[str, str | None] | None:
    """(why Kueue should admit it, the team's LocalQueue or None) when the label is missing."""
    if view is None or (view.group, view.kind) in VOLCANO_KINDS or view.labels.get(_queue_key(ctx)):
        return None
    team_ctx = team(view, ctx)
    if team_ctx is not None and team_ctx.local_queue and view.is_gang and kueue_routed(view, ctx, CODE):
        return f"namespace {view.namespace!r} belongs to team {team_ctx.name!r}, whose gangs Kueue admits", \
            team_ctx.local_queue
    hints = _kueue_hints(view)
    if hints and kueue_routed(view, ctx, CODE):
        local = team_ctx.local_queue if team_ctx is not None else None
        return f"it carries Kueue keys ({', '.join(hints)})", local
    return None


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    missing = _missing(workloads.view(obj), ctx)
    if missing:
        reason, local = missing
        queue = local or "<LocalQueue>"
        yield Violation(label_path(_queue_key(ctx)),
                        f"no {_queue_key(ctx)} label although Kueue should admit this gang ({reason}): Kueue ignores "
                        "it, so it skips quota and all-or-nothing admission",
                        f"add label {_queue_key(ctx)}: {queue}")


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    missing = _missing(workloads.build_view(obj), ctx)
    if missing and missing[1]:
        obj.setdefault("metadata", {}).setdefault("labels", {})[_queue_key(ctx)] = missing[1]
    return obj


RULE = Rule(
    code=CODE, name="missing-queue-label", family="routing", severity=Severity.ERROR,
    summary="A gang that Kueue should admit has no kueue.x-k8s.io/queue-name label, so Kueue ignores it.",
    fix="add the kueue.x-k8s.io/queue-name label naming the team's LocalQueue",
    kinds=WORKLOAD_KINDS, check=check, remediate=remediate, doc=__doc__ or "",
)
