"""training-operator's contract for its v1 jobs (``github.com/kubeflow/training-operator v1.9.4``).

Registered for ``kubeflow.org`` PyTorchJob, JAXJob, TFJob, XGBoostJob and PaddleJob; ``readers/mpi.py``
calls :func:`read_replica_job` for an MPIJob ``kubeflow.org/v1`` (training-operator's own MPI controller;
``v2beta1`` belongs to mpi-operator). Each fact follows, at v1.9.4:

- pod sets: one per ``<kind>ReplicaSpecs.<role>`` (the key in any letter case, ``setTypeNamesToCamelCase``),
  ``replicas`` pods (default 1; an MPIJob's Worker 0, ``mpi_defaults.go``), made directly by
  the operator, all at once (``pkg/apis/kubeflow.org/v1/*_defaults.go``; ``pkg/controller.v1/common/job.go``
  ``ReconcileJobs``: under Volcano, only once the PodGroup is ``Inqueue``);
- gang group: with ``--gang-scheduler-name`` (``volcano``, or any other name for scheduler-plugins), a
  PodGroup named after the job, ``minMember`` = ``runPolicy.schedulingPolicy.minAvailable``, else
  Σ replicas; the Volcano queue is ``schedulingPolicy.queue``, else ``"default"`` (``job.go`` ``ReconcileJobs``);
- failure: ``<role>.restartPolicy`` defaults to ``OnFailure`` for PyTorchJob and PaddleJob and to ``Never``
  for JAXJob, TFJob, XGBoostJob and MPIJob (``Scheme.Default`` in each reconciler). Under ``OnFailure``/
  ``Always`` the kubelet restarts the container in place, and a Failed pod is deleted and recreated alone
  (``pkg/controller.v1/common/pod.go`` ``ReconcilePods``); under ``ExitCode`` (pod ``Never``) an exit code
  ≥ 128 is retried that way and one below fails the job (``pkg/util/train/train_util.go``
  ``IsRetryableExitCode``); under ``Never`` the job fails. ``runPolicy.backoffLimit`` counts the retries;
- terminal: ``runPolicy.cleanPodPolicy`` defaults to ``None``: a finished job deletes nothing, so the
  survivors keep their GPUs (``job.go`` ``DeletePodsAndServices``); ``Running`` and ``All`` stop them;
- success: the Master (Chief, Launcher) succeeds, else every Worker (any Worker of a PyTorchJob with
  ``elasticPolicy``; TFJob's default ``successPolicy``: worker 0) (``pytorchjob_controller.go`` ``UpdateJobStatus``);
- elastic: a PyTorchJob's or PaddleJob's ``elasticPolicy`` (``min``/``maxReplicas`` default to the Worker
  replicas, ``pytorch_defaults.go`` ``setElasticPolicy``, ``paddlepaddle_defautls.go``); the PodGroup minimum
  stays Σ replicas unless written;
- MPIJob v1 (``pkg/controller.v1/mpi/mpijob_controller.go``, read from a stored copy of the source whose tag
  was not confirmed): the launcher pod is created with the workers, no failed pod is recreated, and a failed
  launcher or worker fails the job (``updateMPIJobStatus``, ``UpdateJobStatus``).
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.workloads.contract import podsets
from gpufleet.workloads.contract.podsets import count, identity, pod_set
from gpufleet.workloads.contract.registry import Run, reader
from gpufleet.workloads.contract.types import (
    Admission,
    Backend,
    Contract,
    FailureStep,
    GangGroup,
    Placement,
    Provenance,
    RankFailure,
    Role,
    Success,
    Terminal,
)
from gpufleet.workloads.kinds import build_view
from gpufleet.workloads.types import SPEC, as_int, as_map

TAG = "training-operator v1.9.4"
SOURCE = f"{TAG} pkg/controller.v1/common/job.go"
_RUN_POLICY = SPEC.child("runPolicy")
_POLICY = _RUN_POLICY.child("schedulingPolicy")
ON_FAILURE_KINDS = frozenset({"PyTorchJob", "PaddleJob"})
MASTERS = ("Master", "Chief", "Launcher")
REPLICA_TYPES = {
    "PyTorchJob": ("Master", "Worker"),
    "PaddleJob": ("Master", "Worker"),
    "XGBoostJob": ("Master", "Worker"),
    "JAXJob": ("Worker",),
    "TFJob": ("Chief", "Master", "PS", "Worker", "Evaluator"),
    "MPIJob": ("Launcher", "Worker"),
}
"""The replica types each kind's ``setTypeNamesToCamelCase`` renames keys to (``worker`` → ``Worker``)."""
ELASTIC_KINDS = frozenset({"PyTorchJob", "PaddleJob"})


def canonical(kind: str, role: str) -> str:
    """``role`` as the operator spells it after ``setTypeNamesToCamelCase`` (any letter case in the manifest)."""
    return next((t for t in REPLICA_TYPES.get(kind, ()) if t.lower() == role.lower()), role)


_RECONCILE_PODS = f"{TAG} pkg/controller.v1/common/pod.go ReconcilePods"


def read_replica_job(obj: Mapping[str, Any], run: Run) -> Contract:
    """The contract of one training-operator job (see the module docstring)."""
    kind = str(obj.get("kind", ""))
    spec, meta = as_map(obj.get("spec")), as_map(obj.get("metadata"))
    run_policy, policy = as_map(spec.get("runPolicy")), as_map(as_map(spec.get("runPolicy")).get("schedulingPolicy"))
    view = build_view(obj)
    backoff = as_int(run_policy.get("backoffLimit"))
    pod_sets, failures = [], []
    for template in view.templates if view else ():
        role_name = canonical(kind, template.role)
        replica_spec = as_map(_at(spec, template.path))
        role: Role = "launcher" if role_name == "Launcher" else "rank"
        default = 0 if (kind, role_name) == ("MPIJob", "Worker") else 1
        origin = (
            Provenance(template.replicas_path)
            if "replicas" in replica_spec
            else Provenance(derived=f"{TAG} pkg/apis/kubeflow.org/v1 SetDefaults_{kind}", note=f"replicas {default}")
        )
        replicas = count(replica_spec.get("replicas"), default)
        pod_sets.append(pod_set(template, role_name, role, replicas, origin, run.fleet))
        failures.append(RankFailure(role_name, _steps(kind, replica_spec, template.path.parent, backoff)))
    total = sum(p.count for p in pod_sets)
    names = tuple(p.name for p in pod_sets)
    groups, scheduler = _group(obj, policy, names, total, run)
    elastic = as_map(spec.get("elasticPolicy")) if kind in ELASTIC_KINDS else {}
    workers = next((p.count for p in pod_sets if p.name == "Worker"), 0)
    queue = as_map(meta.get("labels")).get(vocab.QUEUE_LABEL)
    by: Backend = "kueue" if queue else groups[0].backend if groups else "none"
    if elastic:
        low = count(elastic.get("minReplicas"), workers)
        high = count(elastic.get("maxReplicas"), workers)
        admission = Admission(
            "elastic",
            by,
            total - workers + low,
            total - workers + high,
            Provenance(
                SPEC.child("elasticPolicy"),
                derived=f"{TAG} pkg/apis/kubeflow.org/v1/{kind} elasticPolicy defaulting",
            ),
        )
    else:
        admission = podsets.admission(
            obj,
            groups,
            total,
            "kueue v0.19.2 pkg/controller/jobs/kubeflow/kubeflowjob/kubeflowjob_controller.go PodSets",
            "no --gang-scheduler-name: no PodGroup",
        )
    return Contract(
        **identity(obj),
        reader=SOURCE,
        pod_sets=tuple(pod_sets),
        groups=groups,
        admission=admission,
        rank_failures=tuple(failures),
        terminal=terminal(run_policy),
        success=_success(kind, spec, names, bool(elastic)),
        placement=Placement(
            tuple(
                (
                    p.name,
                    scheduler
                    or (t.spec.get("schedulerName") if isinstance(t.spec.get("schedulerName"), str) else None),
                )
                for p, t in zip(pod_sets, view.templates if view else ())
            ),
            origin=Provenance(
                derived=f"{TAG} pkg/controller.v1/common/pod.go", note="the gang scheduler's name is set on every pod"
            )
            if scheduler
            else Provenance(),
        ),
    )


def _at(spec: Mapping[str, Any], template_path: FieldPath) -> Any:
    """The replica spec holding the template at ``template_path`` (``spec.<field>.<role>.template``)."""
    field, role = template_path.segments[1], template_path.segments[2]
    return as_map(as_map(spec.get(str(field))).get(str(role)))


def restart_default(kind: str) -> str:
    return "OnFailure" if kind in ON_FAILURE_KINDS else "Never"


def _steps(kind: str, replica_spec: Mapping[str, Any], at: FieldPath, backoff: int | None) -> tuple[FailureStep, ...]:
    """The layers that act on one failed pod of a replica type (``ReconcilePods``, ``IsRetryableExitCode``)."""
    policy = replica_spec.get("restartPolicy") or restart_default(kind)
    origin = (
        Provenance(at.child("restartPolicy"))
        if replica_spec.get("restartPolicy")
        else Provenance(derived=f"{TAG} pkg/apis/kubeflow.org/v1 SetDefaults_{kind}", note=f"restartPolicy {policy}")
    )
    bound = (
        Provenance(_RUN_POLICY.child("backoffLimit"), derived=_RECONCILE_PODS)
        if backoff is not None
        else Provenance(derived=_RECONCILE_PODS, note="no runPolicy.backoffLimit: retried without bound")
    )
    replaced = FailureStep("operator", "pod", backoff, bound)
    failed = FailureStep(
        "operator",
        "stop",
        None,
        Provenance(origin.path, derived=f"{TAG} UpdateJobStatus", note="a failed pod fails the job"),
    )
    if kind == "MPIJob":  # pkg/controller.v1/mpi/mpijob_controller.go: no pod is recreated, a failed one fails the job
        mpi = Provenance(origin.path, derived=f"{TAG} pkg/controller.v1/mpi/mpijob_controller.go updateMPIJobStatus")
        first = (FailureStep("kubelet", "inPlace", None, origin),) if policy in ("OnFailure", "Always") else ()
        return (*first, FailureStep("operator", "stop", None, mpi))
    if policy in ("OnFailure", "Always"):
        return (FailureStep("kubelet", "inPlace", backoff, origin), replaced)
    if policy == "ExitCode":
        retry = FailureStep(
            "operator",
            "pod",
            backoff,
            Provenance(
                origin.path,
                derived=f"{TAG} pkg/util/train/train_util.go IsRetryableExitCode",
                note="exit code ≥ 128: replaced alone; below: the job fails",
            ),
        )
        return (retry, failed)
    return (failed,)


def terminal(
    run_policy: Mapping[str, Any], default_from: str = f"{TAG} pkg/controller.v1/common/job.go DeletePodsAndServices"
) -> Terminal:
    """``cleanPodPolicy``: ``None`` (the default) keeps the survivors running; ``Running``/``All`` stop them.
    ``default_from`` names the upstream code that applies the default (training-operator's, unless mpi-operator's)."""
    clean, path = run_policy.get("cleanPodPolicy"), _RUN_POLICY.child("cleanPodPolicy")
    if clean:
        stop = clean in ("Running", "All")
        return Terminal(stop, Provenance(path), None if stop else path, None if stop else "Running")
    return Terminal(
        False, Provenance(derived=default_from, note="cleanPodPolicy None: survivors keep running"), path, "Running"
    )


def _group(
    obj: Mapping[str, Any], policy: Mapping[str, Any], names: tuple[str, ...], total: int, run: Run
) -> tuple[tuple[GangGroup, ...], str | None]:
    scheduler = run.operators.get("trainingOperator").gang_scheduler
    if not scheduler:
        return (), None
    backend: Backend = "volcano" if scheduler == "volcano" else "coscheduling"
    written = as_int(policy.get("minAvailable"))
    if written is not None:
        minimum, origin = written, Provenance(_POLICY.child("minAvailable"))
    else:
        minimum, origin = total, Provenance(derived=f"{SOURCE} ReconcileJobs", note="Σ replicas")
    queue, queue_from = None, Provenance()
    if backend == "volcano":
        if policy.get("queue"):
            queue, queue_from = str(policy["queue"]), Provenance(_POLICY.child("queue"))
        else:
            queue, queue_from = "default", Provenance(derived=f"{SOURCE} ReconcileJobs", note='queue "default"')
    group = GangGroup(identity(obj)["name"], backend, "operator", "workload", names, minimum, origin, queue, queue_from)
    return (group,), scheduler


def _success(kind: str, spec: Mapping[str, Any], names: tuple[str, ...], elastic: bool) -> Success:
    derived = Provenance(derived=f"{TAG} pkg/controller.v1 UpdateJobStatus")
    master = next((m for m in MASTERS if m in names), None)
    if master:
        return Success(f"the {master} succeeds", (master,), 1, derived)
    if kind == "TFJob" and spec.get("successPolicy") != "AllWorkers":
        return Success("worker 0 succeeds (TFJob's default successPolicy)", ("Worker",), 1, derived)
    if elastic:
        return Success("any Worker succeeds (elasticPolicy)", ("Worker",), 1, derived)
    return Success("every Worker succeeds", ("Worker",), None, derived)


@reader("kubeflow.org", "PyTorchJob", "JAXJob", "TFJob", "XGBoostJob", "PaddleJob", source=SOURCE)
def read_kubeflow(obj: Mapping[str, Any], run: Run) -> Contract:
    """The contract of a training-operator job."""
    return read_replica_job(obj, run)
