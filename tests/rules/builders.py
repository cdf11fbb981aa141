"""Small builders of workload objects for the rule and workload tests.

Each returns a plain dict shaped like the real manifest, with only what a test sets:
``volcano_job(tasks=[task("worker", replicas=4)], min_available=2)``. ``with_fields`` sets the
optional fields a builder was given, ``manifest`` is the four top-level fields every
object shares.
"""

from __future__ import annotations

from typing import Any

from gpufleet.kubetypes import vocab
from gpufleet.rules.api import Finding, Severity

NAMESPACE = "research"


def meta(
    name: str, namespace: str | None = NAMESPACE, labels: dict | None = None, annotations: dict | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name}
    if namespace:
        out["namespace"] = namespace
    if labels:
        out["labels"] = dict(labels)
    if annotations:
        out["annotations"] = dict(annotations)
    return out


def with_fields(out: dict[str, Any], *fields: tuple[str, Any]) -> dict[str, Any]:
    """``out`` with each ``(key, value)`` of ``fields`` whose value is given (not None), in that order."""
    out.update((key, value) for key, value in fields if value is not None)
    return out


def manifest(api_version: str, kind: str, metadata: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata, "spec": spec}


def container(
    name: str = "main", gpus: int | str | None = None, cpu: str | None = None, memory: str | None = None
) -> dict[str, Any]:
    requests = {k: str(v) for k, v in ((vocab.NVIDIA_GPU, gpus), ("cpu", cpu), ("memory", memory)) if v is not None}
    out: dict[str, Any] = {"name": name, "image": "trainer:1"}
    if requests:
        out["resources"] = {"requests": dict(requests), "limits": dict(requests)}
    return out


def pod_spec(
    restart_policy: str | None = "Never",
    scheduler_name: str | None = None,
    gpus: int | str | None = None,
    cpu: str | None = None,
    memory: str | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [container(gpus=gpus, cpu=cpu, memory=memory)]}
    if restart_policy:
        spec["restartPolicy"] = restart_policy
    if scheduler_name:
        spec["schedulerName"] = scheduler_name
    return spec


def pod_template(labels: dict | None = None, annotations: dict | None = None, **spec: Any) -> dict[str, Any]:
    template: dict[str, Any] = {"spec": pod_spec(**spec)}
    metadata = {k: v for k, v in (("labels", labels), ("annotations", annotations)) if v}
    if metadata:
        template["metadata"] = metadata
    return template


def policy(event: str, action: str) -> dict[str, str]:
    return {"event": event, "action": action}


GANG_POLICIES = [policy("PodEvicted", "RestartJob"), policy("PodFailed", "RestartJob")]


def task(
    name: str = "worker",
    replicas: int | None = 1,
    min_available: int | None = None,
    policies: list | None = None,
    max_retry: int | None = None,
    **template: Any,
) -> dict[str, Any]:
    return with_fields(
        {"name": name, "template": pod_template(**template)},
        ("replicas", replicas),
        ("minAvailable", min_available),
        ("policies", policies),
        ("maxRetry", max_retry),
    )


def volcano_job(
    name: str = "train",
    tasks: list | None = None,
    min_available: int | None = None,
    scheduler_name: str | None = "volcano",
    queue: str | None = None,
    policies: list | None = GANG_POLICIES,
    min_success: int | None = None,
    max_retry: int | None = None,
    namespace: str | None = NAMESPACE,
    labels: dict | None = None,
    annotations: dict | None = None,
) -> dict[str, Any]:
    spec = with_fields(
        {"tasks": tasks if tasks is not None else [task("worker", replicas=4)]},
        ("minAvailable", min_available),
        ("schedulerName", scheduler_name),
        ("queue", queue),
        ("policies", None if policies is None else list(policies)),
        ("minSuccess", min_success),
        ("maxRetry", max_retry),
    )
    return manifest("batch.volcano.sh/v1alpha1", "Job", meta(name, namespace, labels, annotations), spec)


def pod_group(
    name: str = "pg",
    min_member: int | None = 4,
    flavor: str = "volcano",
    queue: str | None = None,
    min_resources: dict | None = None,
    namespace: str | None = NAMESPACE,
    annotations: dict | None = None,
) -> dict[str, Any]:
    api = "scheduling.volcano.sh/v1beta1" if flavor == "volcano" else "scheduling.x-k8s.io/v1alpha1"
    spec = with_fields({}, ("minMember", min_member), ("queue", queue), ("minResources", min_resources))
    return manifest(api, "PodGroup", meta(name, namespace, annotations=annotations), spec)


def replica_spec(replicas: int | None = 1, restart_policy: str | None = "Never", **template: Any) -> dict[str, Any]:
    return with_fields(
        {"template": pod_template(**template)}, ("replicas", replicas), ("restartPolicy", restart_policy)
    )


def pytorch_job(
    name: str = "pt",
    workers: int = 3,
    master: int | None = 1,
    restart_policy: str | None = "Never",
    min_available: int | None = None,
    queue: str | None = None,
    min_resources: dict | None = None,
    namespace: str | None = NAMESPACE,
    labels: dict | None = None,
    annotations: dict | None = None,
    kind: str = "PyTorchJob",
    **template: Any,
) -> dict[str, Any]:
    key, roles = (
        ("pytorchReplicaSpecs", ("Master", "Worker"))
        if kind == "PyTorchJob"
        else ("mpiReplicaSpecs", ("Launcher", "Worker"))
    )
    specs = {}
    if master is not None:
        specs[roles[0]] = replica_spec(master, restart_policy, **template)
    specs[roles[1]] = replica_spec(workers, restart_policy, **template)
    spec: dict[str, Any] = {key: specs}
    scheduling = with_fields({}, ("minAvailable", min_available), ("queue", queue), ("minResources", min_resources))
    if scheduling:
        spec["runPolicy"] = {"schedulingPolicy": scheduling}
    api = "kubeflow.org/v1" if kind == "PyTorchJob" else "kubeflow.org/v2beta1"
    return manifest(api, kind, meta(name, namespace, labels, annotations), spec)


def mpi_job(name: str = "mpi", workers: int = 2, launcher: int | None = 1, **kwargs: Any) -> dict[str, Any]:
    return pytorch_job(name, workers=workers, master=launcher, kind="MPIJob", **kwargs)


def replicated_job(
    name: str = "workers",
    replicas: int | None = 1,
    parallelism: int | None = 2,
    backoff_limit: int | None = 0,
    **template: Any,
) -> dict[str, Any]:
    job_spec = with_fields(
        {"template": pod_template(**template)},
        ("parallelism", parallelism),
        ("completions", parallelism),
        ("backoffLimit", backoff_limit),
    )
    return with_fields({"name": name, "template": {"spec": job_spec}}, ("replicas", replicas))


def jobset(
    name: str = "js",
    replicated_jobs: list | None = None,
    failure_policy: dict | None = None,
    namespace: str | None = NAMESPACE,
    labels: dict | None = None,
    annotations: dict | None = None,
) -> dict[str, Any]:
    spec = with_fields(
        {"replicatedJobs": replicated_jobs if replicated_jobs is not None else [replicated_job()]},
        ("failurePolicy", failure_policy),
    )
    return manifest("jobset.x-k8s.io/v1alpha2", "JobSet", meta(name, namespace, labels, annotations), spec)


def batch_job(
    name: str = "job",
    parallelism: int | None = 4,
    backoff_limit: int | None = None,
    namespace: str | None = NAMESPACE,
    labels: dict | None = None,
    annotations: dict | None = None,
    completion_mode: str | None = None,
    **template: Any,
) -> dict[str, Any]:
    spec = with_fields(
        {"template": pod_template(**template)},
        ("parallelism", parallelism),
        ("completions", parallelism),
        ("backoffLimit", backoff_limit),
        ("completionMode", completion_mode),
    )
    return manifest("batch/v1", "Job", meta(name, namespace, labels, annotations), spec)


def pod(
    name: str = "p0",
    group: str | None = None,
    total: int | str | None = None,
    queue: str | None = None,
    namespace: str | None = NAMESPACE,
    labels: dict | None = None,
    annotations: dict | None = None,
    **spec: Any,
) -> dict[str, Any]:
    labels = dict(labels or {})
    annotations = dict(annotations or {})
    if group:
        labels[vocab.KUEUE_POD_GROUP] = group
    if total is not None:
        annotations[vocab.KUEUE_POD_GROUP_TOTAL] = str(total)
    if queue:
        labels[vocab.QUEUE_LABEL] = queue
    return manifest("v1", "Pod", meta(name, namespace, labels, annotations), pod_spec(**spec))


def train_job(
    name: str = "tj", num_nodes: int | None = 4, namespace: str | None = NAMESPACE, labels: dict | None = None
) -> dict[str, Any]:
    trainer = {"numNodes": num_nodes} if num_nodes is not None else {}
    spec = {"runtimeRef": {"name": "torch-distributed"}, "trainer": trainer}
    return manifest("trainer.kubeflow.org/v1alpha1", "TrainJob", meta(name, namespace, labels), spec)


def deployment(
    name: str = "dep",
    replicas: int | None = 2,
    group: str | None = None,
    namespace: str | None = NAMESPACE,
    kind: str = "Deployment",
) -> dict[str, Any]:
    labels = {vocab.COSCHEDULING_GROUP: group} if group else None
    spec = with_fields({"template": pod_template(labels=labels, restart_policy=None)}, ("replicas", replicas))
    return manifest("apps/v1", kind, meta(name, namespace), spec)


def training_runtime(
    name: str = "torch-distributed",
    num_nodes: int | None = 4,
    replicated_jobs: list | None = None,
    kind: str = "ClusterTrainingRuntime",
    namespace: str | None = None,
) -> dict[str, Any]:
    """A Kubeflow Trainer runtime whose JobSet template holds ``replicated_jobs`` (default: one ``node`` job)."""
    ml_policy = with_fields({"torch": {}}, ("numNodes", num_nodes))
    jobs = replicated_jobs if replicated_jobs is not None else [replicated_job("node", replicas=None, parallelism=None)]
    spec = {"mlPolicy": ml_policy, "template": {"spec": {"replicatedJobs": jobs}}}
    return manifest(
        "trainer.kubeflow.org/v1alpha1", kind, meta(name, namespace if kind == "TrainingRuntime" else None), spec
    )


def finding(
    code="GANG001",
    path="spec.minAvailable",
    namespace="research",
    name="train",
    fix="set minAvailable to 4",
    waived=False,
):
    """A GANG001 finding on a Volcano Job, as the engine reports one (the report and placing tests)."""
    return Finding(
        code=code,
        name="min-below-replicas",
        severity=Severity.ERROR,
        path=path,
        message="minAvailable 2 is below 4 replicas",
        fix=fix,
        api_version="batch.volcano.sh/v1alpha1",
        kind="Job",
        namespace=namespace,
        object_name=name,
        waived=waived,
    )
