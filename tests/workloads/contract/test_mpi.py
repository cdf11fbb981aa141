"""The MPIJob reader against mpi-operator v0.8.0 (v2beta1) and training-operator v1.9.4 (v1), one upstream function per row."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.kubetypes import vocab
from tests.rules.builders import mpi_job
from tests.workloads.contract.probes import PROBES, contract_of

VOLCANO = {"mpiOperator": {"gangScheduler": "volcano"}}
PLUGINS = {"mpiOperator": {"gangScheduler": "scheduler-plugins"}}


def mpi(workers: int | None = 2, restart: str | None = None, **spec: Any) -> dict:
    obj = mpi_job(
        workers=workers or 0,
        restart_policy=restart,
        **{k: spec.pop(k) for k in ("min_available", "queue", "labels") if k in spec},
    )
    if workers is None:
        del obj["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"]
    obj["spec"].update(spec)
    return obj


def v1(obj: dict) -> dict:
    return {**obj, "apiVersion": "kubeflow.org/v1"}


CASES = [
    (
        "training-operator mpi_defaults.go: MPIJob v1 Worker replicas default 0",
        v1(mpi(workers=None)),
        {},
        "counts",
        {"Launcher": 1, "Worker": 0},
    ),
    (
        "training-operator mpijob_controller.go: MPIJob v1 launcher created with the workers, a failed pod fails the job",
        v1(mpi(4, restart="OnFailure")),
        {},
        "steps",
        {
            "Launcher": [("kubelet", "inPlace", None), ("operator", "stop", None)],
            "Worker": [("kubelet", "inPlace", None), ("operator", "stop", None)],
        },
    ),
    # (upstream behaviour, object, operator settings, probe, expected)
    (
        "default.go setDefaultsTypeWorker: Worker replicas default 0",
        mpi(workers=None),
        {},
        "counts",
        {"Worker": 0, "Launcher": 1},
    ),
    (
        "newLauncherJob, getOrCreateWorker: one launcher Job and the workers",
        mpi(4),
        {},
        "roles",
        {"Launcher": "launcher", "Worker": "rank"},
    ),
    (
        "runLauncherAsWorker: the launcher runs ranks too",
        mpi(4, runLauncherAsWorker=True),
        {},
        "roles",
        {"Launcher": "rank", "Worker": "rank"},
    ),
    (
        "countReadyWorkerPods: WaitForWorkersReady creates the launcher after the workers are Ready",
        mpi(4, launcherCreationPolicy="WaitForWorkersReady"),
        {},
        "after",
        {"Launcher": [(("Worker",), "Ready")]},
    ),
    ("AtStartup (default): everything at once", mpi(4), {}, "after", {}),
    ("without --gang-scheduling: no PodGroup", mpi(4), {}, "groups", []),
    ("podgroup.go calculateMinAvailable: workers + 1", mpi(4), VOLCANO, "groups", [("volcano", 5, "workload")]),
    (
        "calculateMinAvailable: workers + 1 also under WaitForWorkersReady",
        mpi(4, launcherCreationPolicy="WaitForWorkersReady"),
        VOLCANO,
        "groups",
        [("volcano", 5, "workload")],
    ),
    (
        "calculateMinAvailable: schedulingPolicy.minAvailable wins",
        mpi(4, min_available=3),
        VOLCANO,
        "minimum_from",
        ["spec.runPolicy.schedulingPolicy.minAvailable"],
    ),
    (
        "newPodGroup: any other gang scheduler name is scheduler-plugins",
        mpi(4),
        PLUGINS,
        "groups",
        [("coscheduling", 5, "workload")],
    ),
    (
        "newPodGroup: the Volcano queue from schedulingPolicy.queue",
        mpi(4, queue="team-a"),
        VOLCANO,
        "queue",
        ["team-a"],
    ),
    (
        "decoratePodTemplateSpec: the operator overwrites every schedulerName",
        mpi(4),
        VOLCANO,
        "schedulers",
        {"Worker": "volcano", "Launcher": "volcano"},
    ),
    (
        "setRestartPolicy, getOrCreateWorker: a Failed worker (Never) is never recreated",
        mpi(4),
        {},
        "scope",
        {"Worker": "notReplaced", "Launcher": "inPlace"},
    ),
    (
        "setDefaultsTypeLauncher: launcher OnFailure, retried up to runPolicy.backoffLimit",
        mpi(4, runPolicy={"backoffLimit": 3}),
        {},
        "steps",
        {
            "Worker": [("operator", "notReplaced", None)],
            "Launcher": [("kubelet", "inPlace", 3), ("operator", "stop", None)],
        },
    ),
    ("setDefaultsRunPolicy: cleanPodPolicy None keeps the workers running", mpi(4), {}, "survivors_stop", False),
    (
        "isCleanUpPods: cleanPodPolicy Running stops them",
        mpi(4, runPolicy={"cleanPodPolicy": "Running"}),
        {},
        "survivors_stop",
        True,
    ),
    (
        "updateMPIJobStatus: the launcher Job's success ends the MPIJob",
        mpi(4),
        {},
        "success",
        ("the launcher Job succeeds", ("Launcher",)),
    ),
    (
        "kueue mpijob_controller.go PodSets: queue-labelled, one Workload",
        mpi(4, labels={vocab.QUEUE_LABEL: "q"}),
        {},
        "admission",
        ("whole", "kueue", 5),
    ),
    (
        "training-operator v1.9.4 MPIJob v1: restartPolicy Never fails the job",
        v1(mpi(4)),
        {},
        "scope",
        {"Launcher": "stop", "Worker": "stop"},
    ),
    (
        "training-operator v1.9.4 MPIJob v1: PodGroup minimum Σ replicas under --gang-scheduler-name",
        v1(mpi(4)),
        {"trainingOperator": {"gangScheduler": "volcano"}},
        "groups",
        [("volcano", 5, "workload")],
    ),
]


@pytest.mark.parametrize(("behaviour", "obj", "operators", "probe", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_mpijob_reader_follows_upstream(
    behaviour: str, obj: dict, operators: dict, probe: str, expected: Any
) -> None:
    assert PROBES[probe](contract_of(obj, operators)) == expected
