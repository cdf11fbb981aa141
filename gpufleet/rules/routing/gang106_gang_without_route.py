"""GANG106 gang-without-route: a multi-pod GPU gang that names no queue, no gang scheduler and no pod group.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; runs with and without a fleet context.

What it checks

A multi-pod job that asks for GPUs (a `batch/v1` Job with `parallelism` > 1, a
PyTorchJob, MPIJob or other Kubeflow job, a JobSet, a TrainJob with `numNodes` > 1, a
LeaderWorkerSet group of `size` > 1, a RayCluster or RayJob with fixed worker groups)
and names no route to a gang-aware admission or scheduler:

- no `kueue.x-k8s.io/queue-name` label (nor any other `kueue.x-k8s.io/` key, GANG103's), or
  one on a kind whose Kueue integration the fleet does not enable (`admission.frameworks`:
  `leaderworkerset.x-k8s.io/leaderworkerset`, `ray.io/rayjob`, `ray.io/raycluster`, ...;
  Kueue gives a disabled integration a no-op webhook, `pkg/controller/jobframework/setup.go`
  at v0.19.2);
- no `ray.io/gang-scheduling-enabled` label (KubeRay v1.7.0 `utils/constant.go`; its batch
  scheduler then makes the PodGroup);
- no Volcano queue, group annotation or `runPolicy.schedulingPolicy`;
- no pod group (Kueue `pod-group-name`, Volcano `group-name`, scheduler-plugins
  `scheduling.x-k8s.io/pod-group`) and no `schedulerName` other than `default-scheduler`;
- for a TrainJob: no `podGroupPolicy` on the (Cluster)TrainingRuntime it references,
  when that runtime is in the same run. With the runtime in the run, the TrainJob is
  judged by the runtime's pod templates (GPUs, schedulerName, pod-group keys) and node
  count (`spec.trainer.numNodes` when set, else the runtime's `spec.mlPolicy.numNodes`);
  without it, by `numNodes` and `resourcesPerNode` alone.

Where the fleet leaves the kind's Kueue integration out while Kueue holds unlabelled work
in the team's namespace, the failure is another: Kueue's pod integration gates every pod
(no Kueue-managed ancestor) and none is ever admitted. That is reported for these gangs
and for a RayCluster with `enableInTreeAutoscaling: true` too (not a fixed gang, but its
head and workers are gated alike), with the fix to enable the integration.

Without a fleet context the namespace's Kueue settings are unknown, so the gang is
reported. With one (`--fleet`), the rendered Kueue Configuration decides: a namespace
that `managedJobsNamespaceSelector` selects while `manageJobsWithoutQueueName` is true
makes Kueue hold the job (GANG103 then says it waits forever for a queue name); a team
with a LocalQueue is GANG103's, a Volcano-only team GANG101's, a namespace of no team
GANG105's. Single-pod jobs and Deployments are not gangs and are never reported.

On a cluster whose Job controller gang-schedules Jobs itself (a fleet context with
`GenericWorkload` and `WorkloadWithJob` on; `gpufleet/kubetypes/workload_api.py` at kubernetes
v1.37.2), a batch Job it gangs names its route: a 1.36 Indexed Job with `parallelism` =
`completions`, a 1.37 Job with `spec.scheduling.schedulingPolicy.gang`. One that does not
qualify (not Indexed at 1.36, no `spec.scheduling` at 1.37, `parallelism` ≠ `completions`, a
sweep) binds pod by pod and is reported as before; in a namespace of a team with a native
pool the fix is the field that makes it qualify. A gang that asks for native gang scheduling
(`spec.schedulingGroup`, `spec.scheduling`) on a cluster the fleet context says does not run
it (the API server drops or forbids the field) is reported at that field.

In a namespace whose team's pools are scheduled by scheduler-plugins' coscheduling,
the fix names only the route that team has (a pod group of the gang's size and the
coscheduling scheduler), never Kueue or Volcano, which do not serve it (GANG806 reports
the missing pod group on the kinds it covers).

Why not GANG103: GANG103 knows the route (Kueue) and can add the team's LocalQueue;
here nothing says which system should place the gang, so there is no safe fix to apply.

Why it is unsafe

Nothing holds the pods back until the whole gang fits. `default-scheduler` binds them
one by one as GPUs free up: part of a 64-pod job starts, holds its GPUs and waits in
the rendezvous for ranks that may never be placed; two such jobs deadlock each other,
and neither is counted against any team's quota.

Example

```yaml
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: research}
spec:
  parallelism: 64
  completions: 64
  template:
    spec:
      containers:
      - {name: w, image: trainer:1, resources: {limits: {nvidia.com/gpu: 8}}}
```

Preferred form

```yaml
metadata:
  name: train
  namespace: research
  labels:
    kueue.x-k8s.io/queue-name: research   # Kueue admits the 64 pods together
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet import workloads
from gpufleet.kubetypes import vocab
from gpufleet.kubetypes import workload_api as wa
from gpufleet.kubetypes.vocab import KUBEFLOW_JOBS
from gpufleet.rules import gangs
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.gangs import GROUP_KEYS as _GROUP_KEYS
from gpufleet.rules.gangs import asks_for_gpus, names_gang_placement
from gpufleet.rules.placement import in_coscheduling_namespace, volcano_only
from gpufleet.rules.routing._helpers import kueue_integration_off
from gpufleet.rules.routing._native import ignored_ask
from gpufleet.workloads import WorkloadView, as_map, label_path
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.native import near_miss

CODE = "GANG106"
KINDS = (
    ("batch", "Job"),
    ("jobset.x-k8s.io", "JobSet"),
    *KUBEFLOW_JOBS,
    ("trainer.kubeflow.org", "TrainJob"),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
    ("ray.io", "RayCluster"),
    ("ray.io", "RayJob"),
)


def _has_kueue_keys(view: WorkloadView) -> bool:
    return any(
        isinstance(k, str) and k.startswith(vocab.KUEUE_PREFIX) for src in (view.labels, view.annotations) for k in src
    )


def _runtime_groups(obj: Mapping[str, Any], ctx: CheckContext) -> bool:
    """A TrainJob whose referenced runtime (in this run) sets ``podGroupPolicy``."""
    runtime = workloads.runtime_for(obj, ctx.run.names)
    return runtime is not None and bool(as_map(as_map(runtime.get("spec")).get("podGroupPolicy")))


def names_a_route(view: WorkloadView, ctx: CheckContext) -> bool:
    """Whether the workload names any queue, gang scheduler or pod group (a Kueue key only where Kueue integrates the kind)."""
    policy = as_map(as_map(as_map(view.obj.get("spec")).get("runPolicy")).get("schedulingPolicy"))
    kueue = bool(view.queue_label or _has_kueue_keys(view)) and not kueue_integration_off(view, ctx)
    return bool(
        kueue
        or view.volcano_queue
        or view.pod_group
        or policy
        or vocab.RAY_GANG in view.labels
        or any(k in view.annotations or k in view.labels for k in (*_GROUP_KEYS, vocab.VOLCANO_QUEUE))
        or names_gang_placement(view)
        or gangs.native_gang(view, ctx) is not None
        or (view.kind == "TrainJob" and _runtime_groups(view.obj, ctx))
    )


def fleet_reason(view: WorkloadView, ctx: CheckContext) -> str | None:
    """Why the fleet leaves this gang unrouted, or None when the fleet routes it (or another rule reports it)."""
    fleet = ctx.fleet
    assert fleet is not None
    team = fleet.team_for_namespace(view.namespace)
    off = kueue_integration_off(view, ctx)
    if off and team is not None and not volcano_only(team):
        return (
            f"Kueue's integration for {view.kind} ({off}) is not in the fleet's admission.frameworks, so Kueue "
            "never admits it (a queue label does nothing)"
        )
    if (
        team is not None
        and not team.local_queue
        and fleet.native_jobs
        and fleet.native_pools(view.namespace)
        and (view.group, view.kind) == ("batch", "Job")
    ):
        why = (
            "Indexed with completions equal to parallelism"
            if wa.jobs_gang_by_shape(fleet.kubernetes_minor or 0)
            else "spec.scheduling.schedulingPolicy.gang"
        )
        return (
            f"and it is no Job the Kubernetes 1.{fleet.kubernetes_minor} Job controller gang-schedules (it gangs only "
            f"a Job with {why})"
        )
    if team is None or team.local_queue or volcano_only(team):
        return None  # GANG105, GANG103 and GANG101 report these
    holds = fleet.kueue_holds_unlabelled(view.namespace)
    if holds:
        return None  # Kueue suspends it until a queue is named: GANG103's message
    settings = (
        "Kueue does not manage the namespace"
        if holds is False
        else "the fleet context does not say whether Kueue manages the namespace"
    )
    return f"namespace {view.namespace!r} belongs to team {team.name!r}, which has no Kueue LocalQueue, and {settings}"


def gated_by_pod_integration(view: WorkloadView, ctx: CheckContext) -> str | None:
    """The disabled Kueue framework of ``view``'s kind when Kueue's pod integration gates its pods instead.

    In a team's Kueue namespace where Kueue holds unlabelled work (``manageJobsWithoutQueueName``
    and ``managedJobsNamespaceSelector``), a pod without a Kueue-managed ancestor is gated
    (``pkg/controller/jobs/pod/pod_webhook.go``, v0.19.2; :mod:`gpufleet.workloads.kueue_gate`);
    a kind whose integration is off is no managed ancestor. Each pod's Workload names no
    LocalQueue, so none is ever admitted.
    """
    fleet = ctx.fleet
    off = kueue_integration_off(view, ctx) if fleet is not None else None
    if off is None or fleet is None:
        return None
    team = fleet.team_for_namespace(view.namespace)
    if team is None or volcano_only(team) or not fleet.kueue_holds_unlabelled(view.namespace):
        return None
    return off if fleet.kueue_integrates("pod") is not False else None


def _gated(view: WorkloadView, ctx: CheckContext, off: str, label: str) -> Violation:
    what = f"all {view.total_pods} pods" if gangs.is_gang(view, ctx) else "every pod it ever creates"
    head = ", head included" if view.group == "ray.io" else ""
    autoscaled = (
        " (an autoscaled cluster: Kueue admits it only as an elastic job, annotation "
        "kueue.x-k8s.io/elastic-job: \"true\" with the ElasticJobsViaWorkloadSlices feature gate)"
        if as_map(view.obj.get("spec")).get("enableInTreeAutoscaling") is True
        else ""
    )
    team = ctx.fleet.team_for_namespace(view.namespace) if ctx.fleet is not None else None
    queue = team.local_queue if team is not None and team.local_queue else "<LocalQueue>"
    return Violation(
        label_path(label),
        f"Kueue's integration for {view.kind} ({off}) is not in the fleet's admission.frameworks, and namespace "
        f"{view.namespace!r} is one where Kueue holds unlabelled work: its pod integration gates {what}{head} "
        "(no Kueue-managed ancestor), and each pod's Workload names no LocalQueue, so nothing ever runs",
        f"add {off} to the model's admission.frameworks and label the {view.kind} {label}: {queue}"
        f"{autoscaled}, or run it in a namespace Kueue does not manage",
    )


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    if view is not None:
        view = workloads.with_runtime(view, ctx.run.names)
    if view is None:
        return
    label = ctx.fleet.queue_label if ctx.fleet is not None else vocab.QUEUE_LABEL
    gang = gangs.is_gang(view, ctx) and view.total_pods >= 2
    off = gated_by_pod_integration(view, ctx) if gang or view.kind == "RayCluster" else None
    if off is not None and asks_for_gpus(view, ctx):
        yield _gated(view, ctx, off, label)
        return
    ignored = ignored_ask(view, ctx) if gang and asks_for_gpus(view, ctx) else None
    if ignored is not None:
        path, why = ignored
        yield Violation(
            path,
            f"this {view.total_pods}-pod GPU gang asks for Kubernetes' own gang scheduling at {path}, but {why}: "
            "default-scheduler binds its pods one by one, so part of the gang can start, hold its GPUs and wait "
            "for ranks that never come",
            "turn the gates on (the model's kubernetes.featureGates, for a cluster that runs them), or "
            + _fix(view, ctx, label),
        )
        return
    if not gang or names_a_route(view, ctx) or not asks_for_gpus(view, ctx):
        return
    if ctx.fleet is None:
        why = (
            "unless its namespace makes Kueue hold unlabelled jobs (manageJobsWithoutQueueName with a "
            "managedJobsNamespaceSelector that selects it; give --fleet to decide)"
        )
    else:
        found = fleet_reason(view, ctx)
        if found is None:
            return
        why = found
    yield Violation(
        label_path(label),
        f"this {view.total_pods}-pod GPU gang names no Kueue queue, no gang scheduler and no pod group, "
        f"{why}: default-scheduler binds its pods one by one, so part of the gang can start, hold its "
        "GPUs and wait for ranks that never come",
        _fix(view, ctx, label),
    )


def _fix(view: WorkloadView, ctx: CheckContext, label: str) -> str:
    """The routes the namespace's team has: a coscheduling team's gangs need a pod group, never Kueue or Volcano."""
    native = native_route(view, ctx)
    if native is not None:
        return native
    if in_coscheduling_namespace(ctx, view.namespace):
        scheduler = ctx.fleet.coscheduling_scheduler if ctx.fleet is not None else None
        return (
            f"give it a pod group of the gang's size: label its pod templates {vocab.COSCHEDULING_GROUP}: "
            f"{view.name or '<job name>'}, declare that PodGroup with minMember {view.total_pods}, and set "
            f"schedulerName: {scheduler or '<the coscheduling scheduler>'} (the team's pools are scheduled by "
            "scheduler-plugins' coscheduling, not Kueue or Volcano)"
        )
    return (
        f"add label {label}: <LocalQueue> (Kueue), or send it to Volcano (queue + schedulerName: volcano), "
        "or give it a pod group of the gang's size"
    )


def native_route(view: WorkloadView, ctx: CheckContext) -> str | None:
    """The fix on a cluster that gang-schedules Jobs itself, for a batch Job of a team with a native pool."""
    fleet = ctx.fleet
    if (
        fleet is None
        or not fleet.native_jobs
        or (view.group, view.kind) != ("batch", "Job")
        or not fleet.native_pools(view.namespace)
    ):
        return None
    near = near_miss(view.obj, fleet.kubernetes_minor or 0)
    shape = (
        "set completionMode: Indexed with completions equal to parallelism"
        if wa.jobs_gang_by_shape(fleet.kubernetes_minor or 0)
        else "set spec.scheduling.schedulingPolicy.gang: {} (minCount defaults to parallelism), with completions equal to parallelism"
    )
    done = " (the admission controller adds it on CREATE)" if near is not None else ""
    return (
        f"let the Job controller make it a gang: {shape}{done}; kube-scheduler then binds all its pods or none "
        f"(team pools {', '.join(p.name for p in fleet.native_pools(view.namespace))} are placed by Kubernetes' own gang scheduling)"
    )


RULE = Rule(
    code=CODE,
    name="gang-without-route",
    family="routing",
    severity=Severity.ERROR,
    summary="A multi-pod GPU gang names no Kueue queue, no gang scheduler and no pod group.",
    fix="name a route: a kueue.x-k8s.io/queue-name label, Volcano (queue + schedulerName), or a pod group",
    kinds=KINDS,
    check=check,
    needs_objects=True,
    doc=__doc__ or "",
    predicts=O.NEVER_WHOLE,  # no gang scheduler, queue or pod group: the pods bind one by one
)
