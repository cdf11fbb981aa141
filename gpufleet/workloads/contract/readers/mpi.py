"""mpi-operator's contract for an MPIJob (``github.com/kubeflow/mpi-operator v0.8.0``, ``kubeflow.org/v2beta1``).

Registered for ``kubeflow.org/MPIJob``; an MPIJob ``kubeflow.org/v1`` is training-operator's and is read by
:func:`gpufleet.workloads.contract.readers.kubeflow.read_replica_job`. Each fact follows, at v0.8.0:

- pod sets: the ``Launcher`` (one batch Job, ``newLauncherJob``) and ``Worker`` ``replicas`` (default 0)
  plain pods (``pkg/apis/kubeflow/v2beta1/default.go``; ``pkg/controller/mpi_job_controller.go``
  ``getOrCreateWorker``); with ``runLauncherAsWorker`` the launcher runs ranks too;
- stages: ``launcherCreationPolicy: WaitForWorkersReady`` creates the launcher Job once every worker pod
  is Ready (``mpi_job_controller.go`` ``countReadyWorkerPods``), ``AtStartup`` (the default) at once;
- gang group: only with ``--gang-scheduling`` (``volcano``, or any other name for scheduler-plugins): a
  PodGroup named after the MPIJob, ``minMember`` = ``runPolicy.schedulingPolicy.minAvailable``, else
  workers + 1, also under ``WaitForWorkersReady``, when the launcher does not exist yet
  (``pkg/controller/podgroup.go`` ``calculateMinAvailable``); the operator overwrites every pod's
  ``schedulerName`` (``decoratePodTemplateSpec``);
- failure: worker ``restartPolicy`` defaults to ``Never`` (``ExitCode`` becomes pod ``Never``,
  ``setRestartPolicy``) and a Failed worker is never recreated (``getOrCreateWorker`` creates only what is
  NotFound); the launcher defaults to ``OnFailure`` and its Job retries it up to ``runPolicy.backoffLimit``;
  a failed launcher Job fails the MPIJob (``updateMPIJobStatus``);
- terminal: ``runPolicy.cleanPodPolicy`` defaults to ``None`` (``default.go`` ``setDefaultsRunPolicy``):
  the workers keep running, and keep their GPUs, after the launcher ends;
- success: the launcher Job succeeds (``updateMPIJobStatus``).
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.workloads.contract import podsets
from gpufleet.workloads.contract.podsets import identity, pod_set
from gpufleet.workloads.contract.readers.kubeflow import read_replica_job, terminal
from gpufleet.workloads.contract.registry import Run, reader
from gpufleet.workloads.contract.types import (
    After,
    Backend,
    Contract,
    FailureStep,
    GangGroup,
    Placement,
    PodSet,
    Provenance,
    RankFailure,
    Role,
    Success,
)
from gpufleet.workloads.kinds import build_view
from gpufleet.workloads.types import SPEC, as_int, as_map

TAG = "mpi-operator v0.8.0"
SOURCE = f"{TAG} pkg/controller/mpi_job_controller.go"
_SPECS = SPEC.child("mpiReplicaSpecs")
_POLICY = SPEC.child("runPolicy", "schedulingPolicy")
_DEFAULTS = f"{TAG} pkg/apis/kubeflow/v2beta1/default.go"
_LAUNCHER_BACKOFF_DEFAULT = 6  # the launcher Job's backoffLimit when runPolicy.backoffLimit is unset (batch/v1 default)


@reader("kubeflow.org", "MPIJob", source=SOURCE)
def read_mpijob(obj: Mapping[str, Any], run: Run) -> Contract:
    """The contract of an MPIJob: mpi-operator's for v2beta1, training-operator's for v1."""
    if str(obj.get("apiVersion", "")) == "kubeflow.org/v1":
        return read_replica_job(obj, run)
    spec = as_map(obj.get("spec"))
    specs, run_policy = as_map(spec.get("mpiReplicaSpecs")), as_map(spec.get("runPolicy"))
    view = build_view(obj)
    templates = {t.role: t for t in (view.templates if view else ())}
    pod_sets: list[PodSet] = []
    failures: list[RankFailure] = []
    backoff = as_int(run_policy.get("backoffLimit"))
    worker_t, launcher_t = templates.get("Worker"), templates.get("Launcher")
    if worker_t is not None:
        worker = as_map(specs.get("Worker"))
        written = as_int(worker.get("replicas"))
        origin = (
            Provenance(_SPECS.child("Worker", "replicas"))
            if written is not None
            else Provenance(derived=f"{_DEFAULTS} setDefaultsTypeWorker", note="replicas 0")
        )
        pod_sets.append(pod_set(worker_t, "Worker", "rank", max(written or 0, 0), origin, run.fleet))
        failures.append(RankFailure("Worker", _worker_steps(worker)))
    if launcher_t is not None:
        after: tuple[After, ...] = ()
        if spec.get("launcherCreationPolicy") == "WaitForWorkersReady" and worker_t is not None:
            after = (
                After(
                    ("Worker",),
                    "Ready",
                    Provenance(SPEC.child("launcherCreationPolicy"), derived=f"{SOURCE} countReadyWorkerPods"),
                ),
            )
        role: Role = "rank" if spec.get("runLauncherAsWorker") is True else "launcher"
        origin = Provenance(derived=f"{SOURCE} newLauncherJob", note="one launcher Job")
        pod_sets.append(pod_set(launcher_t, "Launcher", role, 1, origin, run.fleet, after))
        failures.append(RankFailure("Launcher", _launcher_steps(as_map(specs.get("Launcher")), backoff)))
    workers = next((p.count for p in pod_sets if p.name == "Worker"), 0)
    total = sum(p.count for p in pod_sets)
    groups, scheduler = _group(
        obj,
        as_map(run_policy.get("schedulingPolicy")),
        tuple(p.name for p in pod_sets),
        workers,
        run,
        view.volcano_queue if view else None,
    )
    admission = podsets.admission(
        obj,
        groups,
        total,
        "kueue v0.19.2 pkg/controller/jobs/mpijob/mpijob_controller.go PodSets",
        "no --gang-scheduling: no PodGroup",
    )
    return Contract(
        **identity(obj),
        reader=SOURCE,
        pod_sets=tuple(pod_sets),
        groups=groups,
        admission=admission,
        rank_failures=tuple(failures),
        terminal=terminal(run_policy, f"{TAG} pkg/apis/kubeflow/v2beta1/default.go setDefaultsRunPolicy"),
        success=Success(
            "the launcher Job succeeds", ("Launcher",), 1, Provenance(derived=f"{SOURCE} updateMPIJobStatus")
        ),
        placement=Placement(
            tuple((p.name, scheduler) for p in pod_sets) if scheduler else (),
            origin=Provenance(
                derived=f"{TAG} pkg/controller/podgroup.go decoratePodTemplateSpec", note="schedulerName overwritten"
            )
            if scheduler
            else Provenance(),
        ),
    )


def _worker_steps(worker: Mapping[str, Any]) -> tuple[FailureStep, ...]:
    policy = worker.get("restartPolicy") or "Never"
    steps = []
    if policy in ("OnFailure", "Always"):
        steps.append(FailureStep("kubelet", "inPlace", None, Provenance(_SPECS.child("Worker", "restartPolicy"))))
    steps.append(
        FailureStep(
            "operator",
            "notReplaced",
            None,
            Provenance(derived=f"{SOURCE} getOrCreateWorker", note="a Failed worker is never recreated"),
        )
    )
    return tuple(steps)


def _launcher_steps(launcher: Mapping[str, Any], backoff: int | None) -> tuple[FailureStep, ...]:
    policy = launcher.get("restartPolicy") or "OnFailure"
    origin = (
        Provenance(_SPECS.child("Launcher", "restartPolicy"))
        if launcher.get("restartPolicy")
        else Provenance(derived=f"{_DEFAULTS} setDefaultsTypeLauncher", note="restartPolicy OnFailure")
    )
    bound = backoff if backoff is not None else _LAUNCHER_BACKOFF_DEFAULT
    bound_from = (
        Provenance(SPEC.child("runPolicy", "backoffLimit"))
        if backoff is not None
        else Provenance(derived="kubernetes v1.37.2 pkg/apis/batch/v1/defaults.go", note="Job backoffLimit 6")
    )
    steps = []
    if policy in ("OnFailure", "Always"):
        steps.append(FailureStep("kubelet", "inPlace", bound, origin))
    elif bound > 0:
        steps.append(FailureStep("podController", "pod", bound, bound_from))
    steps.append(
        FailureStep(
            "operator",
            "stop",
            None,
            Provenance(derived=f"{SOURCE} updateMPIJobStatus", note="a failed launcher Job fails the MPIJob"),
        )
    )
    return tuple(steps)


def _group(
    obj: Mapping[str, Any], policy: Mapping[str, Any], names: tuple[str, ...], workers: int, run: Run, queue: str | None
) -> tuple[tuple[GangGroup, ...], str | None]:
    scheduler = run.operators.get("mpiOperator").gang_scheduler
    if not scheduler:
        return (), None
    backend: Backend = "volcano" if scheduler == "volcano" else "coscheduling"
    written = as_int(policy.get("minAvailable"))
    if written is not None:
        minimum, origin = written, Provenance(_POLICY.child("minAvailable"))
    else:
        minimum, origin = (
            workers + 1,
            Provenance(
                derived=f"{TAG} pkg/controller/podgroup.go calculateMinAvailable",
                note="workers + 1 (the launcher counted)",
            ),
        )
    if policy.get("queue"):
        queue, queue_from = str(policy["queue"]), Provenance(_POLICY.child("queue"))
    else:
        queue_from = Provenance()
    group = GangGroup(
        identity(obj)["name"],
        backend,
        "operator",
        "workload",
        names,
        minimum,
        origin,
        queue if backend == "volcano" else None,
        queue_from,
    )
    return (group,), scheduler
