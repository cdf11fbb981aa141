"""The one definition of "this workload is a gang", read by every rule that judges gangs.

Called by the rules (restarts, probes, routing, gpus, platform families) instead of
reading ``WorkloadView.is_gang`` directly. The view says whether a workload *can* be a
gang by its shape (several pods of a JobSet, Kubeflow job, Volcano Job, a pod group's
members, a batch Job with ``parallelism`` > 1). For the kinds that also run plain parallel
work, a batch ``Job``, shape is not enough: an Indexed Job of 50 CPU shards couples
nothing, each index retries alone, and ``restartPolicy: OnFailure`` is right for it. Such
a Job is a gang only when it

- asks for GPUs (a GPU resource of the fleet, or any known GPU resource without one), or
- names a gang scheduler or pod group: a pod template ``schedulerName`` other than
  ``default-scheduler``, a pod-group key (Kueue ``pod-group-name``, Volcano ``group-name``,
  scheduler-plugins ``scheduling.x-k8s.io/pod-group``), a Kubernetes PodGroup
  (``spec.schedulingGroup``) or a Volcano queue, or
- is one the cluster's Job controller gang-schedules itself (:func:`native_gang`: with a fleet
  context whose cluster runs ``GenericWorkload`` and ``WorkloadWithJob``, a 1.36 Indexed Job with
  ``parallelism == completions``, a 1.37 Job with ``spec.scheduling.schedulingPolicy.gang``;
  :mod:`gpufleet.workloads.native`). A Job that does not qualify is judged as before.

GANG106 already counted a batch Job this way; every rule now does (issue 19, item 4).

A batch Job whose ``completions`` exceed its ``parallelism`` is a sweep, never a gang:
it runs its indexes a few at a time and no index waits for the others (issue 32, item 2;
:func:`gpufleet.workloads.stages.is_sweep`). Which pods of a gang are ranks, and which
exist when it starts (``dependsOn`` stages, JobSet initializers, in-place restarts), is
:mod:`gpufleet.workloads.stages`'s.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.vocab import KUBEFLOW_JOBS
from gpufleet.rules.api import CheckContext
from gpufleet.rules.demands import template_requests
from gpufleet.rules.gpumath import amount, gpu_resources, is_gpu
from gpufleet.workloads import WorkloadView, as_map, stages
from gpufleet.workloads.native import GangPolicy, job_gang, scheduling_group
from gpufleet.workloads.types import is_map

SHAPE_IS_NOT_ENOUGH = frozenset({("batch", "Job")})
"""Kinds whose parallel pods are a gang only when they ask for GPUs or a gang scheduler."""
GROUP_KEYS = (vocab.KUEUE_POD_GROUP, vocab.VOLCANO_GROUP, vocab.VOLCANO_GROUP_ALT, vocab.COSCHEDULING_GROUP)
GANG_KINDS = (
    ("batch.volcano.sh", "Job"),
    ("batch", "Job"),
    ("jobset.x-k8s.io", "JobSet"),
    *KUBEFLOW_JOBS,
    ("trainer.kubeflow.org", "TrainJob"),
    ("", "Pod"),
    ("apps", "Deployment"),
    ("apps", "ReplicaSet"),
    ("apps", "StatefulSet"),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
    ("ray.io", "RayCluster"),
    ("ray.io", "RayJob"),
)
"""The workload kinds whose pods may form a gang, judged by the routing rules (GANG101-GANG110) and GANG701."""


def names_gang_placement(view: WorkloadView) -> bool:
    """A pod template naming a scheduler other than default-scheduler, a pod group or a Volcano queue."""
    for template in view.templates:
        scheduler = template.spec.get("schedulerName")
        if scheduler and scheduler != vocab.DEFAULT_SCHEDULER:
            return True
        if any(
            k in source
            for source in (template.labels, template.annotations)
            for k in (*GROUP_KEYS, vocab.VOLCANO_QUEUE)
        ):
            return True
        if scheduling_group(template.spec):
            return True
    if (view.group, view.kind) == ("batch", "Job") and is_map(
        as_map(as_map(as_map(view.obj.get("spec")).get("scheduling")).get("schedulingPolicy")).get("gang")
    ):
        return (
            True  # spec.scheduling asks the Job controller for a PodGroup (the API server forbids it with the gate off)
        )
    return bool(view.pod_group or view.volcano_queue)


def native_gang(view: WorkloadView | None, ctx: CheckContext) -> GangPolicy | None:
    """The gang the cluster's Job controller gives a batch Job (None: no fleet context, gates off, or it does not qualify)."""
    fleet = ctx.fleet
    if view is None or fleet is None or not fleet.native_jobs or (view.group, view.kind) != ("batch", "Job"):
        return None
    return job_gang(view.obj, fleet.kubernetes_minor or 0)


def _trainjob_gpus(obj: Mapping[str, Any], gpus: frozenset[str]) -> bool:
    per_node = as_map(as_map(as_map(obj.get("spec")).get("trainer")).get("resourcesPerNode"))
    return any(
        is_gpu(str(name), gpus) and (amount(value) or Decimal(0)) > 0
        for part in ("requests", "limits")
        for name, value in as_map(per_node.get(part)).items()
    )


def asks_for_gpus(view: WorkloadView, ctx: CheckContext) -> bool:
    """Whether any pod of the workload requests a GPU (a TrainJob: its ``resourcesPerNode`` too)."""
    gpus = gpu_resources(ctx.fleet)
    if view.kind == "TrainJob" and _trainjob_gpus(view.obj, gpus):
        return True
    return any(
        is_gpu(name, gpus) and need > 0
        for t in view.templates
        for name, need in template_requests(ctx, view, t).items()
    )


def is_gang(view: WorkloadView | None, ctx: CheckContext) -> bool:
    """Whether ``view`` is a gang: its shape says so and, for a batch Job, it is no sweep and asks for GPUs or gang placement."""
    if view is None or not view.is_gang or stages.is_sweep(view):
        return False
    if (view.group, view.kind) not in SHAPE_IS_NOT_ENOUGH:
        return True
    return names_gang_placement(view) or native_gang(view, ctx) is not None or asks_for_gpus(view, ctx)


def is_elastic(view: WorkloadView) -> bool:
    """Opted out of full-gang minimums: ``gpufleet.dev/elastic: "true"`` or a PyTorch ``elasticPolicy``."""
    return view.elastic or (view.group == "kubeflow.org" and "elasticPolicy" in as_map(view.obj.get("spec")))
