"""One reader per upstream controller; importing this package registers them all (see ``registry``).

This branch's readers: ``batch`` (Job, CronJob), ``volcano`` (Volcano Job and PodGroup),
``coscheduling`` (scheduler-plugins PodGroup), ``native`` (Kubernetes Workload and PodGroup),
``pods`` (bare Pod, Kueue pod groups), ``apps`` (Deployment, ReplicaSet, StatefulSet, DaemonSet) and
``argo`` (Argo Workflows that embed manifests).
"""

from gpufleet.workloads.contract.readers import apps, argo, batch, coscheduling, native, pods, volcano  # noqa: F401
