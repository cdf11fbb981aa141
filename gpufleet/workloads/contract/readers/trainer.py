"""Kubeflow Trainer's contract for a TrainJob (``github.com/kubeflow/trainer/v2 v2.3.0``), lowered onto its runtime.

Registered for ``trainer.kubeflow.org`` TrainJob, TrainingRuntime and ClusterTrainingRuntime. As Kueue does
(kueue v0.19.2 ``jobs/trainjob/trainjob_controller.go`` ``getChildJobSet``), the TrainJob is lowered to the
JobSet its runtime stamps out, by :func:`gpufleet.workloads.runtimes.with_runtime` (the runtime's templates,
the ``node`` job's ``numNodes``), and read as a JobSet by :func:`.jobset.lower` (pod restart policy,
child ``backoffLimit``, ``failurePolicy``, stages, success: the Trainer sets none of them, ``pkg/runtime``).
What the Trainer adds, at v2.3.0:

- the ``node`` replicatedJob runs ``numNodes`` pods (the TrainJob's ``spec.trainer.numNodes``, else the
  runtime's ``mlPolicy.numNodes``; ``pkg/runtime/core/trainingruntime.go`` ``newRuntimeInfo``), one fewer
  with MPI ``runLauncherAsNode`` (``pkg/runtime/framework/plugins/mpi/mpi.go``); the ``launcher`` job is an
  MPI launcher;
- the runtime's ``podGroupPolicy``: ``coscheduling`` (a scheduler-plugins PodGroup) or ``volcano`` (a
  Volcano PodGroup, queue from ``scheduling.volcano.sh/queue-name``), named after the TrainJob, with
  ``minMember`` = Σ count over **every** pod set, initializers and ``Ready``-dependent launchers included
  (``plugins/coscheduling/coscheduling.go`` ``Build``; ``plugins/volcano/volcano.go`` ``Build``): a minimum
  that counts pods which do not exist when the group is first scheduled.

A runtime read alone is the JobSet its TrainJobs get with its own ``mlPolicy.numNodes``; a TrainJob whose
runtime is not in the input is its ``numNodes`` trainer nodes only (:func:`runtimes.with_nodes_alone`).
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.workloads.contract import podsets
from gpufleet.workloads.contract.podsets import count, identity, pod_set
from gpufleet.workloads.contract.readers.jobset import lower
from gpufleet.workloads.contract.registry import Run, reader
from gpufleet.workloads.contract.types import (
    Backend,
    Contract,
    GangGroup,
    PodSet,
    Provenance,
    Role,
)
from gpufleet.workloads.kinds import build_view
from gpufleet.workloads.runtimes import NODE_JOB, RUNTIME_KINDS, runtime_for, with_nodes_alone, with_runtime
from gpufleet.workloads.types import SPEC, annotation_path, as_list, as_map, label_path

TAG = "trainer v2.3.0"
SOURCE = f"{TAG} pkg/runtime/core/trainingruntime.go"
LAUNCHER_JOB = "launcher"  # pkg/constants: the MPI launcher replicatedJob
_JOBSET_SPEC = SPEC.child("template", "spec")


@reader("trainer.kubeflow.org", "TrainJob", *RUNTIME_KINDS, source=SOURCE)
def read_trainjob(obj: Mapping[str, Any], run: Run) -> Contract:
    """The contract of a TrainJob (through its runtime) or of a runtime alone."""
    view = build_view(obj)
    if view is None:
        return Contract(**identity(obj), reader=SOURCE, known=False)
    trainjob = obj.get("kind") == "TrainJob"
    runtime = runtime_for(obj, run.objects) if trainjob else obj
    notes: list[str] = []
    if runtime is None:
        alone = with_nodes_alone(view)
        ref = as_map(as_map(obj.get("spec")).get("runtimeRef")).get("name")
        notes.append(f"runtime {ref} is not in the input: only the trainer nodes are known")
        origin = Provenance(SPEC.child("trainer", "numNodes"), derived=f"{SOURCE} newRuntimeInfo")
        pod_sets = tuple(pod_set(t, NODE_JOB, "rank", t.replicas, origin, run.fleet) for t in alone.templates) or (
            PodSet(NODE_JOB, "rank", alone.total_pods, origin, None),
        )
        return Contract(**identity(obj), reader=SOURCE, pod_sets=pod_sets, notes=tuple(notes))
    templates = with_runtime(view, run.objects).templates if trainjob else view.templates
    spec = as_map(runtime.get("spec"))
    jobset_spec = as_map(as_map(spec.get("template")).get("spec"))
    nodes, nodes_from = _nodes(obj, runtime, trainjob)
    if as_map(as_map(spec.get("mlPolicy")).get("mpi")).get("runLauncherAsNode") is True:
        nodes, nodes_from = (
            max(nodes - 1, 0),
            Provenance(
                nodes_from.path,
                derived=f"{TAG} pkg/runtime/framework/plugins/mpi/mpi.go",
                note="numNodes − 1 (runLauncherAsNode)",
            ),
        )
    names = {str(as_map(r).get("name")) for r in as_list(jobset_spec.get("replicatedJobs"))}
    roles: dict[str, Role] = {LAUNCHER_JOB: "launcher"} if LAUNCHER_JOB in names else {}
    annotations = as_map(as_map(as_map(spec.get("template")).get("metadata")).get("annotations"))
    lowered = lower(
        jobset_spec,
        _JOBSET_SPEC,
        templates,
        run,
        owner=build_view(runtime) if trainjob else view,
        annotations=annotations,
        counts={NODE_JOB: (nodes, nodes_from)},
        roles=roles,
    )
    if trainjob:
        notes.append(f"pod templates are read from {runtime.get('kind')} {as_map(runtime.get('metadata')).get('name')}")
    else:
        notes.append("a runtime creates no pods itself: this is what a TrainJob using it gets")
    groups = _group(obj, spec, tuple(p.name for p in lowered.pod_sets), sum(p.count for p in lowered.pod_sets))
    total = sum(p.count for p in lowered.pod_sets)
    admission = podsets.admission(
        obj,
        groups,
        total,
        "kueue v0.19.2 pkg/controller/jobs/trainjob/trainjob_controller.go PodSets",
        "no podGroupPolicy in the runtime",
    )
    return Contract(
        **identity(obj),
        reader=SOURCE,
        pod_sets=lowered.pod_sets,
        groups=groups,
        admission=admission,
        rank_failures=lowered.rank_failures,
        terminal=lowered.terminal,
        success=lowered.success,
        placement=lowered.placement,
        notes=(*lowered.notes, *notes),
    )


def _nodes(obj: Mapping[str, Any], runtime: Mapping[str, Any], trainjob: bool) -> tuple[int, Provenance]:
    trainer = as_map(as_map(obj.get("spec")).get("trainer"))
    if trainjob and "numNodes" in trainer:
        return count(trainer.get("numNodes"), 1), Provenance(SPEC.child("trainer", "numNodes"))
    policy = as_map(as_map(runtime.get("spec")).get("mlPolicy"))
    path = SPEC.child("mlPolicy", "numNodes") if "numNodes" in policy else None
    name = as_map(runtime.get("metadata")).get("name")
    return count(policy.get("numNodes"), 1), Provenance(
        path, derived=f"{SOURCE} newRuntimeInfo", note=f"mlPolicy.numNodes of runtime {name}"
    )


def _group(
    obj: Mapping[str, Any], runtime_spec: Mapping[str, Any], members: tuple[str, ...], total: int
) -> tuple[GangGroup, ...]:
    policy = as_map(runtime_spec.get("podGroupPolicy"))
    backend: Backend
    if "coscheduling" in policy:
        backend, derived = "coscheduling", f"{TAG} pkg/runtime/framework/plugins/coscheduling/coscheduling.go Build"
    elif "volcano" in policy:
        backend, derived = "volcano", f"{TAG} pkg/runtime/framework/plugins/volcano/volcano.go Build"
    else:
        return ()
    meta = as_map(obj.get("metadata"))
    queue, queue_from = None, Provenance()
    if backend == "volcano":
        for part, path in (
            ("annotations", annotation_path(vocab.VOLCANO_QUEUE)),
            ("labels", label_path(vocab.VOLCANO_QUEUE)),
        ):
            value = as_map(meta.get(part)).get(vocab.VOLCANO_QUEUE)
            if value:
                queue, queue_from = str(value), Provenance(path)
                break
    origin = Provenance(
        SPEC.child("podGroupPolicy"),
        derived=derived,
        note="Σ count over every pod set, initializers and launchers included",
    )
    return (
        GangGroup(identity(obj)["name"], backend, "operator", "workload", members, total, origin, queue, queue_from),
    )
