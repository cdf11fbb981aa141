"""Where gpufleet's admission controller adds the team's Kueue queue label itself.

One decision, read by the controller that adds the label (:mod:`gpufleet.mutate.kueue`)
and by GANG103, whose message says what happens to an unlabelled job with and without
the controller. Kueue manages batch Jobs, JobSets, Kubeflow PyTorchJobs and MPIJobs,
TrainJobs and plain Pods in a Kueue pod group, and, where the fleet enables their
integrations, LeaderWorkerSets, RayClusters and RayJobs; it has no Volcano integration,
so the label is *not* added to:

- a Volcano Job (not one of these kinds);
- an object routed to Volcano (a pod template with ``schedulerName: volcano``, a
  Volcano queue annotation or label, a Kubeflow ``schedulingPolicy.queue``, or pods
  of a Volcano PodGroup): Kueue would suspend it and charge the wrong quota;
- an object controlled by another Kueue-managed object (a Job a JobSet created):
  Kueue admits the parent as a whole. A Job a CronJob created is labelled (Kueue has no
  CronJob integration: the Job is the workload).
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.fleetctx.context import FleetContext, TeamContext
from gpufleet.kubetypes import vocab
from gpufleet.workloads.kueue_gate import integration
from gpufleet.workloads.types import WorkloadView, as_map, is_map

KUEUE_KINDS: frozenset[tuple[str, str]] = frozenset(
    {
        ("batch", "Job"),
        ("jobset.x-k8s.io", "JobSet"),
        ("kubeflow.org", "PyTorchJob"),
        ("kubeflow.org", "MPIJob"),
        ("trainer.kubeflow.org", "TrainJob"),
        ("", "Pod"),
    }
)
OPT_IN_KINDS: frozenset[tuple[str, str]] = frozenset(
    {
        ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
        ("ray.io", "RayCluster"),
        ("ray.io", "RayJob"),
    }
)
"""Kinds labelled only where the fleet enables their Kueue integration (``admission.frameworks``): elsewhere
Kueue's webhook for them is a no-op and the label would promise an admission that never happens."""
PARENT_GROUPS = frozenset(
    {"batch", "jobset.x-k8s.io", "kubeflow.org", "trainer.kubeflow.org", "ray.io", "leaderworkerset.x-k8s.io"}
)


def controller_queue(view: WorkloadView, team: TeamContext, fleet: FleetContext | None = None) -> str | None:
    """The LocalQueue the admission controller labels ``view`` with in ``team``'s namespace, or None when it does not."""
    kind = (view.group, view.kind)
    if kind in OPT_IN_KINDS:
        if fleet is None or fleet.kueue_integrates(integration(view.obj)) is not True:
            return None
    elif kind not in KUEUE_KINDS:
        return None
    if not team.local_queue:
        return None
    meta = as_map(view.obj.get("metadata"))
    labels, annotations = as_map(meta.get("labels")), as_map(meta.get("annotations"))
    if view.kind == "Pod" and not (labels.get(vocab.KUEUE_POD_GROUP) or annotations.get(vocab.KUEUE_POD_GROUP)):
        return None
    if _routed_to_volcano(view, annotations) or _owned_by_managed_parent(meta):
        return None
    return team.local_queue


def _routed_to_volcano(view: WorkloadView, annotations: Mapping[str, Any]) -> bool:
    if view.volcano_queue or annotations.get(vocab.VOLCANO_GROUP) or annotations.get(vocab.VOLCANO_GROUP_ALT):
        return True
    return any(t.spec.get("schedulerName") == vocab.VOLCANO_SCHEDULER for t in view.templates)


def _owned_by_managed_parent(meta: Mapping[str, Any]) -> bool:
    owners = meta.get("ownerReferences")
    if not isinstance(owners, list):
        return False
    for owner in owners:
        if is_map(owner) and owner.get("controller") is True:
            api_version = str(owner.get("apiVersion", ""))
            group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
            if group in PARENT_GROUPS and owner.get("kind") != "CronJob":
                return True
    return False
