"""Kubeflow Trainer v2 runtimes: the view of a (Cluster)TrainingRuntime and a TrainJob seen through its runtime.

A TrainJob carries no pod template: its pods come from the (Cluster)TrainingRuntime
named by ``spec.runtimeRef`` (``name``, ``kind`` defaulting to ClusterTrainingRuntime,
``apiGroup``), whose ``spec.template`` is a JobSet template
(``spec.template.spec.replicatedJobs[].template.spec.template``; CRDs in
``crds/trainer``, e.g. ``manifests/base/runtimes/torch_distributed.yaml`` upstream).

``kinds.build_view`` calls :func:`runtime_view` so the template rules (restart policy,
probes, GPU request/limit, node fit) check runtimes themselves at exact paths. Rules
that judge a TrainJob's gang (GANG106) call :func:`with_runtime` with the run's name
index (``RunIndex.names``: one look-up, not a scan of the run per TrainJob): when the
referenced runtime is in the same run, the TrainJob's view gets the runtime's pod templates, and the trainer node count is the TrainJob's
``spec.trainer.numNodes`` if set, else the runtime's ``spec.mlPolicy.numNodes``
(the Trainer's ``node`` replicatedJob runs one pod per node). The admission webhook
sees one object at a time: there a runtime is checked alone and a TrainJob without it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping, Sequence

from gpufleet.workloads.names import ANY, NameIndex
from gpufleet.workloads.types import SPEC, PodTemplate, WorkloadView, as_int, as_list, as_map, is_map

_REPLICATED_JOBS = SPEC.child("template", "spec", "replicatedJobs")

GROUP = "trainer.kubeflow.org"
RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")
NODE_JOB = "node"  # the Trainer's trainer-node replicatedJob (pkg/constants: Node)


def _count(value: Any) -> int:
    return max(as_int(value, 1) or 0, 0)


def runtime_nodes(runtime: Mapping[str, Any]) -> int:
    """``spec.mlPolicy.numNodes`` of a runtime (1 when absent)."""
    return _count(as_map(as_map(runtime.get("spec")).get("mlPolicy")).get("numNodes"))


def runtime_templates(runtime: Mapping[str, Any], nodes: int) -> tuple[PodTemplate, ...]:
    """The pod templates of a runtime's JobSet template; the ``node`` job stamps ``nodes`` pods."""
    base = _REPLICATED_JOBS
    jobs = as_list(as_map(as_map(as_map(runtime.get("spec")).get("template")).get("spec")).get("replicatedJobs"))
    templates = []
    for i, rjob in enumerate(jobs):
        if not is_map(rjob):
            continue
        name = str(rjob.get("name") or "")
        job_spec = as_map(as_map(rjob.get("template")).get("spec"))
        count = nodes if name == NODE_JOB else _count(rjob.get("replicas")) * _count(job_spec.get("parallelism"))
        pod = as_map(job_spec.get("template"))
        job = base.index(i)
        path = job.child("template", "spec", "template")
        templates.append(
            PodTemplate(path, pod, count, name, job.child("replicas"), as_map(pod.get("spec")), path.child("spec"))
        )
    return tuple(templates)


def with_nodes_alone(view: WorkloadView) -> WorkloadView:
    """A TrainJob seen without its runtime: ``numNodes`` pods asking for ``spec.trainer.resourcesPerNode``.

    ``view`` unchanged when it has templates (its runtime was found) or sets no
    ``resourcesPerNode``. The one template stands for the trainer nodes only (the runtime's
    other jobs are unknown), so a capacity rule reading it counts a lower bound.
    """
    if view.group != GROUP or view.kind != "TrainJob" or view.templates:
        return view
    trainer = as_map(as_map(view.obj.get("spec")).get("trainer"))
    resources = trainer.get("resourcesPerNode")
    if not is_map(resources):
        return view
    spec = {"containers": [{"name": NODE_JOB, "resources": resources}]}
    at = SPEC.child("trainer")
    template = PodTemplate(at, {"spec": spec}, view.total_pods, NODE_JOB, at.child("numNodes"), spec, at)
    return dataclasses.replace(view, templates=(template,))


def runtime_view(base: Callable[..., WorkloadView], obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    """The view of a runtime itself: its templates, a gang of its own ``mlPolicy.numNodes``."""
    return base(obj, group, kind, runtime_templates(obj, runtime_nodes(obj)))


def runtime_for(
    trainjob: Mapping[str, Any], objects: NameIndex | Sequence[Mapping[str, Any]]
) -> Mapping[str, Any] | None:
    """The runtime ``trainjob`` references, when it is among ``objects`` (a TrainingRuntime in its namespace).

    ``objects``: the run's :class:`NameIndex` (one look-up; ``RunIndex.names``), or a sequence
    of objects, indexed for this call.
    """
    ref = as_map(as_map(trainjob.get("spec")).get("runtimeRef"))
    kind, name = ref.get("kind") or "ClusterTrainingRuntime", ref.get("name")
    if ref.get("apiGroup", GROUP) != GROUP or kind not in RUNTIME_KINDS or not name:
        return None
    index = objects if isinstance(objects, NameIndex) else NameIndex(objects)
    namespace = ANY if kind == "ClusterTrainingRuntime" else as_map(trainjob.get("metadata")).get("namespace")
    return index.named(GROUP, kind, name, namespace)


def with_runtime(view: WorkloadView, objects: NameIndex | Sequence[Mapping[str, Any]]) -> WorkloadView:
    """``view`` of a TrainJob with its runtime's templates and node count, or ``view`` unchanged."""
    if view.group != GROUP or view.kind != "TrainJob":
        return view
    runtime = runtime_for(view.obj, objects)
    if runtime is None:
        return view
    trainer = as_map(as_map(view.obj.get("spec")).get("trainer"))
    nodes = _count(trainer["numNodes"]) if "numNodes" in trainer else runtime_nodes(runtime)
    templates = runtime_templates(runtime, nodes)
    total = sum(t.replicas for t in templates) if templates else nodes
    return dataclasses.replace(view, templates=templates, total_pods=total)
