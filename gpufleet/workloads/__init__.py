"""Read-only views of workload kinds, shared by the rules, the mutator and the linter.

``view(obj)`` returns a :class:`WorkloadView` (pod templates with their paths,
replica counts, gang minimum, scheduler, queues) or None for objects that are not
workloads. Supported: Volcano Job and PodGroup, scheduler-plugins PodGroup, Kubernetes'
own ``scheduling.k8s.io`` Workload and PodGroup (``native``), batch
Job, JobSet, Kubeflow PyTorchJob/MPIJob (and the other ``*ReplicaSpecs`` jobs),
TrainJob, (Cluster)TrainingRuntime (``runtimes``), Pod, Deployment/ReplicaSet/StatefulSet (gang only with a pod-group key),
LeaderWorkerSet (one group) and RayCluster/RayJob (``groups``).
"""

from gpufleet.workloads.kinds import WORKLOAD_KINDS, build_view, created_job
from gpufleet.workloads.pods import effective_scheduler, pod_containers, pod_group_name, template_scheduler
from gpufleet.workloads.runtimes import RUNTIME_KINDS, runtime_for, with_nodes_alone, with_runtime
from gpufleet.workloads.types import (
    PodTemplate,
    WorkloadView,
    annotation_path,
    as_int,
    as_list,
    as_map,
    group_of,
    label_path,
)

__all__ = [
    "PodTemplate",
    "RUNTIME_KINDS",
    "WorkloadView",
    "WORKLOAD_KINDS",
    "annotation_path",
    "as_int",
    "as_list",
    "as_map",
    "build_view",
    "created_job",
    "effective_scheduler",
    "group_of",
    "label_path",
    "pod_containers",
    "pod_group_name",
    "runtime_for",
    "template_scheduler",
    "view",
    "with_nodes_alone",
    "with_runtime",
]

view = build_view
"""A fresh view of an object; the rules read theirs from ``ctx.run.view(obj)`` (built once per run)."""
