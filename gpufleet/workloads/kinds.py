"""Build a :class:`WorkloadView` for each supported workload kind.

Called through :func:`gpufleet.workloads.view`; one small builder per kind family
(Volcano, PodGroups, Kubernetes' own Workload and PodGroup (``native``), batch Job, JobSet, Kubeflow, TrainJob and its runtimes, Pod, apps
controllers, LeaderWorkerSet and Ray in ``groups``), dispatched by ``(group, kind)``. Counts follow the controllers that
create the pods: absent Volcano task ``replicas`` is 0 (Go zero value), absent
Kubeflow/JobSet/Job counts are 1.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.fieldpath import ROOT, FieldPath
from gpufleet.workloads.elastic import is_elastic
from gpufleet.workloads.groups import lws_view, ray_view
from gpufleet.workloads.native import gang_policies, scheduling_group
from gpufleet.workloads.pods import pod_group_name
from gpufleet.workloads.runtimes import runtime_view
from gpufleet.workloads.types import (
    SPEC,
    PodTemplate,
    WorkloadView,
    annotation_path,
    as_int,
    as_list,
    as_map,
    as_name,
    group_of,
    is_map,
    label_path,
)

Builder = Callable[[Mapping[str, Any], str, str], WorkloadView]


_TASKS, _REPLICATED_JOBS = SPEC.child("tasks"), SPEC.child("replicatedJobs")
_TEMPLATE = SPEC.child("template")
_SCHEDULING_POLICY = SPEC.child("runPolicy", "schedulingPolicy")
_QUEUE, _MIN_AVAILABLE, _MIN_MEMBER = SPEC.child("queue"), SPEC.child("minAvailable"), SPEC.child("minMember")
_VQ_ANNOTATION, _VQ_LABEL = annotation_path(vocab.VOLCANO_QUEUE), label_path(vocab.VOLCANO_QUEUE)
_POD_GROUP_TOTAL = annotation_path(vocab.KUEUE_POD_GROUP_TOTAL)


def _template(path: FieldPath, template: Any, replicas: int, role: str, replicas_path: FieldPath | None) -> PodTemplate:
    template = as_map(template)
    return PodTemplate(path, template, replicas, role, replicas_path, as_map(template.get("spec")), path.child("spec"))


def _base(
    obj: Mapping[str, Any],
    group: str,
    kind: str,
    templates: tuple[PodTemplate, ...],
    *,
    total_pods: int | None = None,
    gang_min: int | None = None,
    gang_min_path: FieldPath | None = None,
    scheduler_name: str | None = None,
    is_gang: bool = True,
    pod_group: str | None = None,
    volcano_queue: Any = None,
    volcano_queue_path: FieldPath | None = None,
) -> WorkloadView:
    meta = as_map(obj.get("metadata"))
    labels, annotations = as_map(meta.get("labels")), as_map(meta.get("annotations"))
    queue = labels.get(vocab.QUEUE_LABEL)
    vq, vq_path = volcano_queue, volcano_queue_path
    if not vq:
        vq, vq_path = annotations.get(vocab.VOLCANO_QUEUE), _VQ_ANNOTATION
    if not vq:
        vq, vq_path = labels.get(vocab.VOLCANO_QUEUE), _VQ_LABEL
    if total_pods is None:
        total_pods = sum(t.replicas for t in templates) if len(templates) != 1 else templates[0].replicas
    return WorkloadView(
        obj,
        group,
        kind,
        templates,
        total_pods,
        gang_min,
        gang_min_path,
        scheduler_name,
        str(queue) if queue else None,
        str(vq) if vq else None,
        is_elastic(annotations),
        is_gang,
        pod_group,
        vq_path if vq else None,
    )


_TASK_PATHS: list[tuple[FieldPath, FieldPath, FieldPath]] = []
"""``(template, replicas, template spec)`` paths of task i, built once per index (paths are immutable)."""


def _task_paths(i: int) -> tuple[FieldPath, FieldPath, FieldPath]:
    if i < len(_TASK_PATHS):
        return _TASK_PATHS[i]
    task = _TASKS.index(i)
    paths = task.child("template"), task.child("replicas"), task.child("template", "spec")
    if i == len(_TASK_PATHS) and i < 256:  # bounded: a job has a handful of tasks
        _TASK_PATHS.append(paths)
    return paths


def _volcano_job(obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    spec = as_map(obj.get("spec"))
    found: list[PodTemplate] = []
    for i, task in enumerate(as_list(spec.get("tasks"))):
        if not is_map(task):
            continue
        path, replicas_path, spec_path = _task_paths(i)
        template = as_map(task.get("template"))
        replicas = as_int(task.get("replicas"), 0) or 0
        found.append(
            PodTemplate(
                path,
                template,
                replicas if replicas > 0 else 0,
                str(task.get("name") or ""),
                replicas_path,
                as_map(template.get("spec")),
                spec_path,
            )
        )
    templates = tuple(found)
    has_min = "minAvailable" in spec
    return _base(
        obj,
        group,
        kind,
        templates,
        gang_min=as_int(spec.get("minAvailable")),
        gang_min_path=_MIN_AVAILABLE if has_min else None,
        scheduler_name=as_name(spec.get("schedulerName")),
        volcano_queue=as_name(spec.get("queue")),
        volcano_queue_path=_QUEUE,
    )


def _pod_group(obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    spec = as_map(obj.get("spec"))
    minimum = as_int(spec.get("minMember"))
    return _group_view(
        obj,
        group,
        kind,
        minimum,
        _MIN_MEMBER if "minMember" in spec else None,
        volcano_queue=spec.get("queue") if group == "scheduling.volcano.sh" else None,
        volcano_queue_path=_QUEUE,
    )


def _native_group(obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    """A ``scheduling.k8s.io`` Workload or PodGroup: its first gang policy's ``minCount`` is the gang minimum."""
    policies = gang_policies(obj)
    first = policies[0] if policies else None
    minimum = first.min_count if first is not None else None
    return _group_view(obj, group, kind, minimum, first.path if first is not None else None, is_gang=bool(policies))


def _group_view(
    obj: Mapping[str, Any],
    group: str,
    kind: str,
    minimum: int | None,
    minimum_path: FieldPath | None,
    **rest: Any,
) -> WorkloadView:
    """A gang object without pod templates (a PodGroup, a Workload): its gang minimum is all the pods it counts."""
    return _base(obj, group, kind, (), total_pods=minimum or 0, gang_min=minimum, gang_min_path=minimum_path, **rest)


def _batch_job(obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    spec = as_map(obj.get("spec"))
    parallelism = max(as_int(spec.get("parallelism"), 1) or 0, 0)
    template = _template(_TEMPLATE, spec.get("template"), parallelism, "", SPEC.child("parallelism"))
    return _base(obj, group, kind, (template,), is_gang=parallelism > 1, pod_group=scheduling_group(template.spec))


def _jobset(obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    templates = []
    for i, rjob in enumerate(as_list(as_map(obj.get("spec")).get("replicatedJobs"))):
        if not is_map(rjob):
            continue
        job_spec = as_map(as_map(rjob.get("template")).get("spec"))
        count = max(as_int(rjob.get("replicas"), 1) or 0, 0) * max(as_int(job_spec.get("parallelism"), 1) or 0, 0)
        job = _REPLICATED_JOBS.index(i)
        templates.append(
            _template(
                job.child("template", "spec", "template"),
                job_spec.get("template"),
                count,
                str(rjob.get("name") or ""),
                job.child("replicas"),
            )
        )
    return _base(obj, group, kind, tuple(templates))


def _kubeflow(obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    spec = as_map(obj.get("spec"))
    templates = []
    for field, specs in spec.items():
        if not (isinstance(field, str) and field.endswith("ReplicaSpecs")) or not is_map(specs):
            continue
        for role, rspec in specs.items():
            rspec, base = as_map(rspec), SPEC.child(field, str(role))
            templates.append(
                _template(
                    base.child("template"),
                    rspec.get("template"),
                    max(as_int(rspec.get("replicas"), 1) or 0, 0),
                    str(role),
                    base.child("replicas"),
                )
            )
    policy = as_map(as_map(spec.get("runPolicy")).get("schedulingPolicy"))
    return _base(
        obj,
        group,
        kind,
        tuple(templates),
        gang_min=as_int(policy.get("minAvailable")),
        gang_min_path=_SCHEDULING_POLICY.child("minAvailable") if "minAvailable" in policy else None,
        volcano_queue=policy.get("queue"),
        volcano_queue_path=_SCHEDULING_POLICY.child("queue"),
    )


def _trainjob(obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    trainer = as_map(as_map(obj.get("spec")).get("trainer"))
    return _base(obj, group, kind, (), total_pods=max(as_int(trainer.get("numNodes"), 1) or 0, 0))


def _runtime(obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    return runtime_view(_base, obj, group, kind)


def _pod(obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    meta = as_map(obj.get("metadata"))
    annotations = as_map(meta.get("annotations"))
    member = pod_group_name(as_map(meta.get("labels")), annotations) or scheduling_group(obj.get("spec"))
    template = PodTemplate(ROOT, obj, 1, "", None, as_map(obj.get("spec")), SPEC)
    has_total = vocab.KUEUE_POD_GROUP_TOTAL in annotations
    return _base(
        obj,
        group,
        kind,
        (template,),
        is_gang=member is not None,
        pod_group=member,
        gang_min=as_int(annotations.get(vocab.KUEUE_POD_GROUP_TOTAL)),
        gang_min_path=_POD_GROUP_TOTAL if has_total else None,
    )


def _apps(obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    spec = as_map(obj.get("spec"))
    template = _template(
        _TEMPLATE, spec.get("template"), max(as_int(spec.get("replicas"), 1) or 0, 0), "", SPEC.child("replicas")
    )
    member = pod_group_name(template.labels, template.annotations) or scheduling_group(template.spec)
    return _base(obj, group, kind, (template,), is_gang=member is not None, pod_group=member)


def _daemon_set(obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    """One pod per node: never a gang, but its template may reach any node (GANG807)."""
    template = _template(_TEMPLATE, as_map(obj.get("spec")).get("template"), 1, "", None)
    return _base(obj, group, kind, (template,), is_gang=False)


def _cron_job(obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    """The Jobs a CronJob creates, judged by their template (``spec.jobTemplate.spec.template``); not a gang here."""
    job = as_map(as_map(as_map(obj.get("spec")).get("jobTemplate")).get("spec"))
    template = _template(
        SPEC.child("jobTemplate", "spec", "template"),
        job.get("template"),
        max(as_int(job.get("parallelism"), 1) or 0, 0),
        "",
        SPEC.child("jobTemplate", "spec", "parallelism"),
    )
    return _base(obj, group, kind, (template,), is_gang=False)


def created_job(cron_job: Mapping[str, Any]) -> dict[str, Any]:
    """The Job a CronJob creates: ``spec.jobTemplate``'s metadata and spec, in the CronJob's namespace.

    The CronJob controller copies only ``jobTemplate.metadata`` (labels, annotations) to its Jobs,
    never the CronJob's own labels (``getJobFromTemplate2``, ``pkg/controller/cronjob/utils.go``).
    """
    meta = as_map(cron_job.get("metadata"))
    template = as_map(as_map(cron_job.get("spec")).get("jobTemplate"))
    job_meta = {**as_map(template.get("metadata"))}
    for key in ("name", "namespace"):
        if meta.get(key):
            job_meta[key] = meta[key]
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": job_meta, "spec": as_map(template.get("spec"))}


def _lws(obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    return lws_view(_base, _template, obj, group, kind)


def _ray(obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    return ray_view(_base, _template, obj, group, kind)


BUILDERS: dict[tuple[str, str], Builder] = {
    ("batch.volcano.sh", "Job"): _volcano_job,
    ("scheduling.volcano.sh", "PodGroup"): _pod_group,
    ("scheduling.x-k8s.io", "PodGroup"): _pod_group,
    ("scheduling.k8s.io", "Workload"): _native_group,
    ("scheduling.k8s.io", "PodGroup"): _native_group,
    ("batch", "Job"): _batch_job,
    ("jobset.x-k8s.io", "JobSet"): _jobset,
    ("kubeflow.org", "PyTorchJob"): _kubeflow,
    ("kubeflow.org", "MPIJob"): _kubeflow,
    ("kubeflow.org", "TFJob"): _kubeflow,
    ("kubeflow.org", "XGBoostJob"): _kubeflow,
    ("kubeflow.org", "PaddleJob"): _kubeflow,
    ("kubeflow.org", "JAXJob"): _kubeflow,
    ("trainer.kubeflow.org", "TrainJob"): _trainjob,
    ("trainer.kubeflow.org", "TrainingRuntime"): _runtime,
    ("trainer.kubeflow.org", "ClusterTrainingRuntime"): _runtime,
    ("", "Pod"): _pod,
    ("apps", "Deployment"): _apps,
    ("apps", "ReplicaSet"): _apps,
    ("apps", "StatefulSet"): _apps,
    ("apps", "DaemonSet"): _daemon_set,
    ("batch", "CronJob"): _cron_job,
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): _lws,
    ("ray.io", "RayCluster"): _ray,
    ("ray.io", "RayJob"): _ray,
}
WORKLOAD_KINDS: frozenset[tuple[str, str]] = frozenset(BUILDERS)


def build_view(obj: Mapping[str, Any]) -> WorkloadView | None:
    """A fresh view of ``obj``, or None when it is not a workload kind (or not a mapping)."""
    if not is_map(obj):
        return None
    group, kind = group_of(obj), str(obj.get("kind", ""))
    builder = BUILDERS.get((group, kind))
    return builder(obj, group, kind) if builder else None
