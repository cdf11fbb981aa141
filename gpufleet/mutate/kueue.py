"""The team's Kueue LocalQueue label on the workload kinds Kueue manages.

Called by :func:`gpufleet.mutate.core.mutate` for an object in a team's namespace
whose team has a LocalQueue. Kueue manages batch Jobs, JobSets, Kubeflow
PyTorchJobs and MPIJobs, TrainJobs and plain Pods in a Kueue pod group, and, where the
fleet enables their integrations, LeaderWorkerSets, RayClusters and RayJobs; it has no
Volcano integration, so the label is *not* added to:

- a Volcano Job (a different kind: never reaches this module);
- an object routed to Volcano (a pod template with ``schedulerName: volcano``, a
  Volcano queue annotation or label, a Kubeflow ``schedulingPolicy.queue``, or pods
  of a Volcano PodGroup): Kueue would suspend it and charge the wrong quota;
- an object controlled by another Kueue-managed object (a Job a JobSet created):
  Kueue admits the parent as a whole.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.fleetctx.context import FleetContext, TeamContext
from gpufleet.mutate.patch import PatchBuilder, is_map
from gpufleet.workloads import WorkloadView, as_map, keys, label_path
from gpufleet.workloads.kueue_gate import integration

KUEUE_KINDS: frozenset[tuple[str, str]] = frozenset({
    ("batch", "Job"), ("jobset.x-k8s.io", "JobSet"), ("kubeflow.org", "PyTorchJob"),
    ("kubeflow.org", "MPIJob"), ("trainer.kubeflow.org", "TrainJob"), ("", "Pod"),
})
OPT_IN_KINDS: frozenset[tuple[str, str]] = frozenset({
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"), ("ray.io", "RayCluster"), ("ray.io", "RayJob"),
})
"""Kinds labelled only where the fleet enables their Kueue integration (``admission.frameworks``): elsewhere
Kueue's webhook for them is a no-op and the label would promise an admission that never happens."""
_PARENT_GROUPS = frozenset({"batch", "jobset.x-k8s.io", "kubeflow.org", "trainer.kubeflow.org", "ray.io",
                            "leaderworkerset.x-k8s.io"})


def mutate_kueue_label(view: WorkloadView, team: TeamContext, label: str, patch: PatchBuilder,
                       fleet: FleetContext | None = None) -> None:
    kind = (view.group, view.kind)
    if kind in OPT_IN_KINDS:
        if fleet is None or fleet.kueue_integrates(integration(view.obj)) is not True:
            return
    elif kind not in KUEUE_KINDS:
        return
    if not team.local_queue:
        return
    meta = as_map(view.obj.get("metadata"))
    labels, annotations = as_map(meta.get("labels")), as_map(meta.get("annotations"))
    if view.kind == "Pod" and not (labels.get(keys.KUEUE_POD_GROUP) or annotations.get(keys.KUEUE_POD_GROUP)):
        return
    if _routed_to_volcano(view, labels, annotations) or _owned_by_managed_parent(meta):
        return
    patch.set_default(label_path(label), team.local_queue)


def _routed_to_volcano(view: WorkloadView, labels: Mapping[str, Any], annotations: Mapping[str, Any]) -> bool:
    if view.volcano_queue or annotations.get(keys.VOLCANO_GROUP) or annotations.get(keys.VOLCANO_GROUP_ALT):
        return True
    return any(t.spec.get("schedulerName") == keys.VOLCANO_SCHEDULER for t in view.templates)


def _owned_by_managed_parent(meta: Mapping[str, Any]) -> bool:
    owners = meta.get("ownerReferences")
    if not isinstance(owners, list):
        return False
    for owner in owners:
        if is_map(owner) and owner.get("controller") is True:
            api_version = str(owner.get("apiVersion", ""))
            group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
            if group in _PARENT_GROUPS and owner.get("kind") != "CronJob":
                return True
    return False
