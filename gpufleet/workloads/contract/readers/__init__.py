"""One reader per upstream controller; importing this package registers them all (see ``registry``).

Built-in and engine kinds: ``batch`` (Job, CronJob), ``volcano`` (Volcano Job and PodGroup),
``coscheduling`` (scheduler-plugins PodGroup), ``native`` (Kubernetes Workload and PodGroup),
``pods`` (bare Pod, Kueue pod groups), ``apps`` (Deployment, ReplicaSet, StatefulSet, DaemonSet),
``argo`` (Argo Workflows that embed manifests). Workload operators: ``jobset``, ``lws``
(LeaderWorkerSet), ``mpi`` (mpi-operator), ``trainer`` (TrainJob), ``kubeflow`` (training-operator)
and ``ray`` (KubeRay).
"""

from gpufleet.workloads.contract.readers import (  # noqa: F401
    apps,
    argo,
    batch,
    coscheduling,
    jobset,
    kubeflow,
    lws,
    mpi,
    native,
    pods,
    ray,
    trainer,
    volcano,
)
