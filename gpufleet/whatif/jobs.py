"""The manifests a careful user of a team writes for one trace job: routed to the team's queue, gang-safe.

Called by the sandbox replay (``gpufleet.sandbox.replay``) for every trace line, so that
what differs between two replays is the quota model and nothing else. A Kueue kind
becomes an Indexed batch Job (``parallelism`` = ``completions`` = pods, the team's
LocalQueue label, a WorkloadPriorityClass label when the line names one, ``backoffLimit``
0 so that a failed rank fails the job instead of being replaced alone, GANG204): JobSet and
PyTorchJob lines are replayed as that Job, because the sandbox runs no JobSet or
Kubeflow controller and Kueue admits their pod sets exactly as one Job's (the report
says so). A VolcanoJob gets ``minAvailable`` = pods (``minPods`` for an elastic one, annotated
``gpufleet.dev/elastic`` as GANG001 asks), the team's Volcano queue and a
``RestartJob`` policy on a failed pod, as GANG001 and GANG201 ask. ``pod_annotations``
(the sandbox's KWOK run time) are added to every pod template.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.kubetypes.vocab import (
    ELASTIC,
    KUEUE_PRIORITY_CLASS,
    NVIDIA_GPU,
    QUEUE_LABEL,
    VOLCANO_QUEUE,
    VOLCANO_SCHEDULER,
    WHATIF_JOB_LABEL,
)
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.model.teams import Team
from gpufleet.whatif.trace import TraceJob


def team_of(fleet: Fleet, namespace: str) -> Team:
    return next(t for t in fleet.teams if namespace in t.namespaces)


def _pool(job: TraceJob, fleet: Fleet) -> Pool:
    """The pool the trace line names (the trace's loader checked that the model has it)."""
    found = fleet.pool(job.pool or "")
    if found is None:
        raise ValueError(f"pool {job.pool!r} is not in model {fleet.name!r}: load the trace against this model")
    return found


def _resources(job: TraceJob, fleet: Fleet) -> dict[str, str]:
    gpu = _pool(job, fleet).gpu_resource if job.pool else _gpu_resource(fleet, job.namespace)
    out = {gpu: str(job.gpus_per_pod)} if job.gpus_per_pod else {}
    if job.cpu_per_pod:
        out["cpu"] = job.cpu_per_pod
    if job.memory_per_pod:
        out["memory"] = job.memory_per_pod
    return out


def _gpu_resource(fleet: Fleet, namespace: str) -> str:
    team = team_of(fleet, namespace)
    for name in team.quota:
        if (pool := fleet.pool(name)) is not None:
            return pool.gpu_resource
    return NVIDIA_GPU


def pod_template(job: TraceJob, fleet: Fleet, annotations: Mapping[str, str]) -> dict[str, Any]:
    """The pod every rank runs: one container asking for the line's requests, on the line's pool when it names one."""
    requests = _resources(job, fleet)
    spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "containers": [
            {"name": "trainer", "image": "trainer:replay", "resources": {"requests": requests, "limits": requests}}
        ],
    }
    if job.pool:
        pool = _pool(job, fleet)
        spec["nodeSelector"] = dict(pool.node_labels)
        if pool.tolerations:
            spec["tolerations"] = [t.model_dump(by_alias=True, exclude_none=True) for t in pool.tolerations]
    return {"metadata": {"labels": {WHATIF_JOB_LABEL: job.name}, "annotations": dict(annotations)}, "spec": spec}


def _batch_job(job: TraceJob, fleet: Fleet, annotations: Mapping[str, str]) -> dict[str, Any]:
    team = team_of(fleet, job.namespace)
    labels = {WHATIF_JOB_LABEL: job.name, QUEUE_LABEL: team.local_queue_name}
    if job.priority_class:
        labels[KUEUE_PRIORITY_CLASS] = job.priority_class
    template = pod_template(job, fleet, annotations)
    if job.priority_class:
        template["spec"]["priorityClassName"] = job.priority_class
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": job.name, "namespace": job.namespace, "labels": labels},
        "spec": {
            "parallelism": job.pods,
            "completions": job.pods,
            "completionMode": "Indexed",
            "backoffLimit": 0,
            "suspend": True,
            "template": template,
        },
    }


def _volcano_job(job: TraceJob, fleet: Fleet, annotations: Mapping[str, str]) -> dict[str, Any]:
    team = team_of(fleet, job.namespace)
    template = pod_template(job, fleet, annotations)
    spec: dict[str, Any] = {
        "schedulerName": VOLCANO_SCHEDULER,
        "queue": team.name,
        "minAvailable": job.needed,
        "maxRetry": 3,
        "policies": [{"event": "PodFailed", "action": "RestartJob"}, {"event": "PodEvicted", "action": "RestartJob"}],
        "tasks": [{"name": "worker", "replicas": job.pods, "template": template}],
    }
    if job.priority_class:
        spec["priorityClassName"] = job.priority_class
    own = {VOLCANO_QUEUE: team.name, **({ELASTIC: "true"} if job.needed < job.pods else {})}
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {
            "name": job.name,
            "namespace": job.namespace,
            "labels": {WHATIF_JOB_LABEL: job.name},
            "annotations": own,
        },
        "spec": spec,
    }


def manifest(job: TraceJob, fleet: Fleet, annotations: Mapping[str, str] = {}) -> dict[str, Any]:
    """The one object submitted for ``job`` (a trace checked against ``fleet``)."""
    if job.kind == "VolcanoJob":
        return _volcano_job(job, fleet, annotations)
    return _batch_job(job, fleet, annotations)


SUBSTITUTED = {"JobSet": "Indexed batch Job", "PyTorchJob": "Indexed batch Job"}
"""Trace kinds the sandbox cannot run as themselves (no JobSet or Kubeflow controller), and what it runs instead."""


def substitutions(kinds) -> dict[str, str]:
    """The substituted kinds among ``kinds`` (the report lists them)."""
    return {k: SUBSTITUTED[k] for k in sorted(set(kinds)) if k in SUBSTITUTED}
