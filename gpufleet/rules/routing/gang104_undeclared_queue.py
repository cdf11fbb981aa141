"""GANG104 undeclared-queue: a workload names a queue the fleet model does not give its team.

Called by the rule engine (linter, policy pack, admission controller) through the
registry: per object only with a fleet context; without one, its stack-level hook
(`check_run`, once per run: the linter's file set, the policy pack's stack) checks the
run's workloads against the queues the run itself declares.

What it checks

- A `kueue.x-k8s.io/queue-name` label naming a LocalQueue the model does not declare
  in the object's namespace (without a namespace: in no namespace at all).
- A Volcano queue (Volcano Job or PodGroup `spec.queue`, Kubeflow
  `runPolicy.schedulingPolicy.queue`, `scheduling.volcano.sh/queue-name`) that the
  model does not declare, or that belongs to another team than the namespace's.
- Without a fleet context, the run is the source of truth: a queue label must name a
  LocalQueue the run declares in the workload's namespace, and a Volcano queue a Volcano
  Queue the run declares (Volcano's own `default` queue always exists). A kind of
  reference is only checked when the run declares at least one queue of that kind (a
  run of workloads alone has nothing to compare with).

Why it is unsafe

Kueue keeps a workload whose LocalQueue does not exist pending with no event a user
sees (kueue.md §6): the gang silently never starts. In a namespace Kueue does not manage
(outside `managedJobsNamespaceSelector`, whose selector the chart copies to the job
webhooks) the label is ignored instead: the job runs at once, outside every quota and
all-or-nothing admission (the real engines ran such a Job whole; docs/sandbox.md, "The
differential tier"), and the message says which of the two applies. Volcano has no namespace-to-queue
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

from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

from gpufleet.fleetctx.context import FleetContext
from gpufleet.kubetypes import vocab
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import JOB_KINDS, POD_GROUP_PODS, POD_GROUPS, CelCheck, CelForm, fact, resources
from gpufleet.rules.celkinds import VOLCANO_QUEUE_VARIABLES, map_value
from gpufleet.rules.gangs import GANG_KINDS
from gpufleet.rules.routing._helpers import POD_GROUP_KINDS, team
from gpufleet.rules.run import RunIndex
from gpufleet.workloads import WorkloadView, as_map, group_of, label_path
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.types import SPEC

LOCAL_QUEUE = ("kueue.x-k8s.io", "LocalQueue")
VOLCANO_QUEUE = ("scheduling.volcano.sh", "Queue")
VOLCANO_DEFAULT_QUEUE = "default"


def _local_queue(view: WorkloadView, ctx: CheckContext) -> Iterator[Violation]:
    fleet, queue = ctx.fleet, view.queue_label
    if fleet is None or not queue:
        return
    if view.namespace is None:
        ok = queue in fleet.local_queue_names()
    else:
        ok = (view.namespace, queue) in fleet.local_queues()
    if not ok:
        team_ctx = team(view, ctx)
        hint = (
            f"team {team_ctx.name!r} uses {team_ctx.local_queue!r}"
            if team_ctx and team_ctx.local_queue
            else "declare it in the fleet model"
        )
        where = f" in namespace {view.namespace!r}" if view.namespace else ""
        yield Violation(
            label_path(fleet.queue_label),
            f"LocalQueue {queue!r} is not declared{where} by the fleet model: {_consequence(view.namespace, fleet)}",
            f"use a declared LocalQueue ({hint})",
        )


def _consequence(namespace: str | None, fleet: FleetContext) -> str:
    """What Kueue does with a job naming a LocalQueue that does not exist, by whether it manages the namespace:
    outside ``managedJobsNamespaceSelector`` the chart's job webhooks are never called, and the real engines ran
    such a Job whole, unsuspended (the differential tier, docs/sandbox.md)."""
    managed = fleet.kueue_managed_namespaces
    if namespace is not None and managed is not None and namespace not in managed:
        return (
            f"Kueue does not manage namespace {namespace!r} (managedJobsNamespaceSelector), so it ignores the label "
            "and the job runs outside every quota and all-or-nothing admission"
        )
    return "Kueue leaves the workload pending forever"


def _volcano_queue(view: WorkloadView, ctx: CheckContext) -> Iterator[Violation]:
    fleet, queue = ctx.fleet, view.volcano_queue
    if fleet is None or not queue:
        return
    path = view.volcano_queue_path or SPEC.child("queue")
    team_ctx = team(view, ctx)
    if queue not in fleet.volcano_queues():
        yield Violation(
            path,
            f"Volcano queue {queue!r} is not declared by the fleet model: the job is rejected, or "
            "runs outside every team's quota",
            "use the team's Volcano queue from the fleet model",
        )
    elif team_ctx is not None and team_ctx.volcano_queue != queue and own_queue(fleet, team_ctx.name) == queue:
        if fleet.kueue_holds_unlabelled(view.namespace) is False:  # else GANG108 says why it hangs
            yield Violation(
                path,
                f"Volcano queue {queue!r} is team {team_ctx.name!r}'s, but namespace {view.namespace!r} "
                "is Kueue's: the team's Volcano work belongs in its Volcano namespaces "
                f"({', '.join(team_ctx.volcano_namespaces) or 'none'})",
                "submit it in the team's Volcano namespace, or through Kueue with its LocalQueue",
            )
    elif team_ctx is not None and team_ctx.volcano_queue != queue:
        own = repr(team_ctx.volcano_queue) if team_ctx.volcano_queue else "none"
        yield Violation(
            path,
            f"Volcano queue {queue!r} belongs to another team than {team_ctx.name!r} (its queue: "
            f"{own}); Volcano does not check who submits to a queue",
            "submit to your own team's Volcano queue",
        )


def own_queue(fleet: FleetContext, team: str) -> str | None:
    """The team's Volcano queue, whichever of its namespaces asks (``team_for_namespace`` hides it in Kueue's)."""
    return next((t.volcano_queue for t in fleet.teams if t.name == team), None)


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    if view is not None:
        yield from _local_queue(view, ctx)
        yield from _volcano_queue(view, ctx)


def declared(objs: Iterable[Mapping[str, Any]]) -> tuple[set[tuple[str, str]] | None, set[str] | None]:
    """(namespace, LocalQueue) pairs and Volcano Queue names the objects declare (None: no queue of that kind)."""
    local: set[tuple[str, str]] | None = None
    volcano: set[str] | None = None
    for obj in objs:
        kind, meta = (group_of(obj), str(obj.get("kind", ""))), as_map(obj.get("metadata"))
        if kind == LOCAL_QUEUE:
            local = local or set()
            local.add((str(meta.get("namespace") or "default"), str(meta.get("name", ""))))
        elif kind == VOLCANO_QUEUE:
            volcano = volcano or set()
            volcano.add(str(meta.get("name", "")))
    return local, volcano


@dataclass(frozen=True)
class _Declared:
    """The queues a run declares, with what the messages list (built once per run, not per workload)."""

    local: set[tuple[str, str]] | None
    volcano: set[str] | None
    local_by_namespace: Mapping[str, str]
    """``{namespace: its LocalQueues, sorted and joined}``."""
    volcano_known: frozenset[str]
    volcano_listed: str

    @classmethod
    def of(cls, local: set[tuple[str, str]] | None, volcano: set[str] | None) -> _Declared:
        by_namespace: dict[str, list[str]] = {}
        for ns, q in local or ():
            by_namespace.setdefault(ns, []).append(q)
        return cls(
            local,
            volcano,
            {ns: ", ".join(sorted(qs)) for ns, qs in by_namespace.items()},
            frozenset((volcano or set()) | {VOLCANO_DEFAULT_QUEUE}),
            ", ".join(sorted(volcano or ())),
        )


def _run_queue(view: WorkloadView, declared: _Declared) -> Iterator[Violation]:
    """The undeclared queue references of one workload."""
    namespace = view.namespace or "default"
    if declared.local is not None and view.queue_label and (namespace, view.queue_label) not in declared.local:
        known = declared.local_by_namespace.get(namespace, "")
        yield Violation(
            label_path(vocab.QUEUE_LABEL),
            f"LocalQueue {view.queue_label!r} is not declared in namespace {namespace!r} by this stack"
            f" (declared there: {known or 'none'}), so Kueue never admits the workload",
            f"use one of the namespace's LocalQueues ({known or 'declare one first'})",
        )
    if declared.volcano is not None and view.volcano_queue and view.volcano_queue not in declared.volcano_known:
        yield Violation(
            view.volcano_queue_path or SPEC.child("queue"),
            f"Volcano queue {view.volcano_queue!r} is not declared by this stack"
            f" (declared: {declared.volcano_listed or 'none'}), so the job stays Pending",
            "use a Volcano Queue this stack declares",
        )


def check_run(run: RunIndex, ctx: CheckContext) -> Iterator[tuple[Mapping[str, Any], Violation]]:
    """Without a fleet context: every workload's queues against the queues the run declares.

    With one, ``check`` compares every queue with the fleet model (which the run's queues are
    rendered from), so this reports nothing rather than the same queue twice.
    """
    if ctx.fleet is not None:
        return
    local, volcano = declared(run.objects)
    if local is None and volcano is None:
        return
    queues = _Declared.of(local, volcano)
    for obj, view in zip(run.objects, run.views):
        if view is not None:
            for violation in _run_queue(view, queues):
                yield obj, violation


_NS_QUEUE = "request.namespace + '.' + variables.volcanoQueue"
_NS_LOCAL = "request.namespace + '.' + variables.localQueue"
CEL = CelForm(
    resources=(
        *resources(*JOB_KINDS, *POD_GROUPS),
        POD_GROUP_PODS,
    ),
    facts=(
        "localQueue",
        "volcanoQueue",
        "teamNamespace",
        "namespaceVolcanoQueue",
        "teamVolcanoQueue",
        "kueueLeavesUnlabelled",
    ),
    variables=(
        ("localQueue", map_value("object.metadata.labels", vocab.QUEUE_LABEL)),
        *VOLCANO_QUEUE_VARIABLES,
    ),
    checks=(
        CelCheck(
            f"variables.localQueue == '' || {fact('localQueue', _NS_LOCAL)}",
            f"'{label_path(vocab.QUEUE_LABEL)}'",
            "'LocalQueue ' + variables.localQueue + ' is not declared in namespace ' + request.namespace "
            "+ ' by the fleet model: Kueue never admits the workload, or ignores the label where it does not manage "
            "the namespace'",
            "'use a LocalQueue the fleet model declares for the namespace\\'s team'",
        ),
        CelCheck(
            f"variables.volcanoQueue == '' || ({fact('volcanoQueue', 'variables.volcanoQueue')} "
            f"&& (!{fact('teamNamespace', 'request.namespace')} || {fact('namespaceVolcanoQueue', _NS_QUEUE)} "
            f"|| ({fact('teamVolcanoQueue', _NS_QUEUE)} && !{fact('kueueLeavesUnlabelled', 'request.namespace')})))",
            "variables.volcanoQueuePath",
            f"'Volcano queue ' + variables.volcanoQueue + ({fact('volcanoQueue', 'variables.volcanoQueue')} "
            "? ' is not the queue of namespace ' + request.namespace + '\\'s team: Volcano does not check who "
            "submits to a queue' : ' is not declared by the fleet model: the job is rejected, or runs outside every "
            "team\\'s quota')",
            "'use the Volcano queue the fleet model gives the namespace\\'s team'",
        ),
    ),
)


RULE = Rule(
    code="GANG104",
    name="undeclared-queue",
    family="routing",
    severity=Severity.ERROR,
    summary="A workload names a LocalQueue or Volcano queue the fleet model does not give its team.",
    fix="name the queue the fleet model declares for the namespace's team",
    kinds=(*GANG_KINDS, *POD_GROUP_KINDS),
    check=check,
    needs_fleet=True,
    doc=__doc__ or "",
    check_run=check_run,
    cel=CEL,
    predicts=frozenset({O.REFUSED}) | O.NEVER_WHOLE,  # no such queue: refused, or never admitted
)
