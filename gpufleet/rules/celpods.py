"""The CEL spelling of a workload's pod templates (:mod:`gpufleet.workloads.kinds`), for the rules' CEL forms.

Read by the forms that judge every pod template of the admitted object: GANG401
(:mod:`gpufleet.rules.gpus.gang401_gpu_request_limit_mismatch`) and GANG807
(:mod:`gpufleet.rules.partition.gang807_partition_breach`). Each source below is one kind's
templates as the Python view builds them, for the webhook's resources that have templates:
a Volcano Job's ``tasks[i].template``, a batch Job's ``template``, a JobSet's
``replicatedJobs[i].template.spec.template``, a PyTorchJob's or MPIJob's
``<pytorch|mpi>ReplicaSpecs[role].template``, a LeaderWorkerSet's leader and worker templates
and a RayCluster's (a RayJob's ``rayClusterSpec``) head and worker groups. A template with no
``spec`` has no containers, so leaving it out changes no verdict. A TrainJob (its templates are its
runtime's, another object), PodGroups and Workloads have none.

The forms declare the variable :data:`TEMPLATES` (every template's pod spec and its path);
:func:`any_spec` is true when some pod spec satisfies a predicate and :func:`spec_path` names the
first such template (``spec.tasks[1].template.spec``) for the message. The predicate is a Python
function from the CEL expression of a pod spec to a CEL bool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from gpufleet.rules.celform import JOB_KINDS, resources, without

Predicate = Callable[[str], str]
H = "h0"
"""The comprehension variable of the templates' holders (distinct from the predicates' own)."""


@dataclass(frozen=True)
class _Source:
    kind: str
    """CEL: the admitted object is of this source's kind."""
    holders: str
    """CEL list of the holders of templates with a spec."""
    spec: str
    """CEL: the pod spec of holder ``h0``."""
    path: str
    """CEL string: the path of holder ``h0``'s pod spec."""


def _indexed(items: str, prefix: str, suffix: str) -> str:
    return f"'{prefix}[' + string({items}.indexOf({H})) + ']{suffix}'"


def _roles(field: str) -> _Source:
    specs = f"object.spec.{field}"
    return _Source(
        "object.apiVersion.startsWith('kubeflow.org/')",
        f"(has({specs}) ? {specs}.filter({H}, has({specs}[{H}].template) && has({specs}[{H}].template.spec)) : [])",
        f"{specs}[{H}].template.spec",
        f"'spec.{field}.' + {H} + '.template.spec'",
    )


def _one(kind: str, parent: str, fields: tuple[str, ...], path: str) -> _Source:
    """A single template at ``parent.<fields>`` (each step guarded by ``has``)."""
    steps, guards = parent, []
    for field in fields:
        steps = f"{steps}.{field}"
        guards.append(f"has({steps})")
    return _Source(kind, f"({' && '.join(guards)} && has({steps}.spec) ? [{steps}] : [])", f"{H}.spec", f"'{path}'")


def _ray(kind: str, root: str, at: str) -> tuple[_Source, _Source]:
    workers = f"{root}.workerGroupSpecs"
    return (
        _one(kind, root, ("headGroupSpec", "template"), f"{at}headGroupSpec.template.spec"),
        _Source(
            kind,
            f"(has({workers}) ? {workers}.filter({H}, has({H}.template) && has({H}.template.spec)) : [])",
            f"{H}.template.spec",
            _indexed(workers, f"{at}workerGroupSpecs", ".template.spec"),
        ),
    )


_TASKS, _RJOBS = "object.spec.tasks", "object.spec.replicatedJobs"
_RAY = "object.apiVersion.startsWith('ray.io/')"
SOURCES: tuple[_Source, ...] = (
    _Source(
        "object.apiVersion.startsWith('batch.volcano.sh/')",
        f"(has({_TASKS}) ? {_TASKS}.filter({H}, has({H}.template) && has({H}.template.spec)) : [])",
        f"{H}.template.spec",
        _indexed(_TASKS, "spec.tasks", ".template.spec"),
    ),
    _one("object.apiVersion == 'batch/v1'", "object", ("spec", "template"), "spec.template.spec"),
    _Source(
        "object.apiVersion.startsWith('jobset.x-k8s.io/')",
        f"(has({_RJOBS}) ? {_RJOBS}.filter({H}, has({H}.template) && has({H}.template.spec) "
        f"&& has({H}.template.spec.template) && has({H}.template.spec.template.spec)) : [])",
        f"{H}.template.spec.template.spec",
        _indexed(_RJOBS, "spec.replicatedJobs", ".template.spec.template.spec"),
    ),
    _roles("pytorchReplicaSpecs"),
    _roles("mpiReplicaSpecs"),
    _one(
        "object.apiVersion.startsWith('leaderworkerset.x-k8s.io/')",
        "object",
        ("spec", "leaderWorkerTemplate", "leaderTemplate"),
        "spec.leaderWorkerTemplate.leaderTemplate.spec",
    ),
    _one(
        "object.apiVersion.startsWith('leaderworkerset.x-k8s.io/')",
        "object",
        ("spec", "leaderWorkerTemplate", "workerTemplate"),
        "spec.leaderWorkerTemplate.workerTemplate.spec",
    ),
    *_ray(f"{_RAY} && object.kind == 'RayCluster'", "object.spec", "spec."),
    *_ray(f"{_RAY} && object.kind == 'RayJob'", "object.spec.rayClusterSpec", "spec.rayClusterSpec."),
)

TEMPLATE_RESOURCES = without(resources(*JOB_KINDS), ("trainer.kubeflow.org", "trainjobs"))
"""The webhook's resources whose objects hold pod templates (every source above): every job kind but a TrainJob."""


TEMPLATES = (
    "templates",
    " + ".join(
        f"({source.kind} ? {source.holders}.map({H}, {{'path': dyn({source.path}), 'spec': {source.spec}}}) : [])"
        for source in SOURCES
    ),
)
"""The variable every template form declares: ``[{'path': <pod spec path>, 'spec': <pod spec>}]`` of the admitted object
(one list, so that a predicate is written once in the expression and once in the message). The path is ``dyn``: the API
server's compiler refuses a map literal whose values are a string and a dyn ("expected type 'string' but found 'dyn'",
the e2e run of tests/e2e/test_vap_e2e.py)."""


def any_spec(bad: Predicate) -> str:
    """CEL: some pod spec of the admitted object satisfies ``bad`` (reads :data:`TEMPLATES`)."""
    return f"variables.templates.exists(t0, {bad('t0.spec')})"


def spec_path(bad: Predicate) -> str:
    """CEL string: the path of the first pod spec satisfying ``bad`` (evaluated only when one does)."""
    return f"variables.templates.filter(t0, {bad('t0.spec')})[0].path"


def containers(spec: str) -> str:
    """CEL list: the containers and init containers of the pod spec ``spec`` (:func:`gpufleet.workloads.pod_containers`)."""
    return f"((has({spec}.containers) ? {spec}.containers : []) + (has({spec}.initContainers) ? {spec}.initContainers : []))"
