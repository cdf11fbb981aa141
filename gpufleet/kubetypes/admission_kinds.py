"""The workload resources the admission controller's webhooks are sent, spelled once.

Read by the renderer of the webhook configurations
(:mod:`gpufleet.render.controller.webhooks`) and by GANG701, which must know which
kinds the controller stamps. A leaf module (standard library only) so the rule
registry can read it without importing the renderers and the pydantic model: that
import alone cost ``gpufleet lint`` more than half a second (docs/performance.md).
"""

from __future__ import annotations

# (apiGroup, versions, resource) of every workload kind the rule engine reads.
WORKLOAD_RESOURCES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("batch.volcano.sh", ("v1alpha1",), "jobs"),
    ("scheduling.volcano.sh", ("v1beta1",), "podgroups"),
    ("scheduling.x-k8s.io", ("v1alpha1",), "podgroups"),
    ("batch", ("v1",), "jobs"),
    ("jobset.x-k8s.io", ("v1alpha2",), "jobsets"),
    ("kubeflow.org", ("v1",), "pytorchjobs"),
    ("kubeflow.org", ("v1", "v2beta1"), "mpijobs"),
    ("trainer.kubeflow.org", ("v1alpha1",), "trainjobs"),
    ("leaderworkerset.x-k8s.io", ("v1",), "leaderworkersets"),
    ("ray.io", ("v1",), "rayjobs"),
    ("ray.io", ("v1",), "rayclusters"),
    # Kubernetes' own gang scheduling (gpufleet/kubetypes/workload_api.py): 1.36 v1alpha2, 1.37 v1beta1.
    ("scheduling.k8s.io", ("v1alpha2", "v1beta1"), "workloads"),
    ("scheduling.k8s.io", ("v1alpha2", "v1beta1"), "podgroups"),
)

KIND_OF: dict[str, str] = {
    "jobs": "Job",
    "podgroups": "PodGroup",
    "jobsets": "JobSet",
    "pytorchjobs": "PyTorchJob",
    "mpijobs": "MPIJob",
    "trainjobs": "TrainJob",
    "leaderworkersets": "LeaderWorkerSet",
    "rayjobs": "RayJob",
    "rayclusters": "RayCluster",
    "workloads": "Workload",
    "pods": "Pod",
}
"""The kind each resource of the webhooks holds."""

REVIEWED_KINDS: frozenset[tuple[str, str]] = frozenset(
    {(group, KIND_OF[resource]) for group, _, resource in WORKLOAD_RESOURCES} | {("", "Pod")}
)
"""``(apiGroup, kind)`` of every object the validating webhook is sent (the workloads, and Kueue pod-group Pods)."""
