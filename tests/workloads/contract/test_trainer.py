"""The TrainJob reader against Kubeflow Trainer v2.3.0: lowered onto its runtime, read as a JobSet, one row per behaviour."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.kubetypes import vocab
from tests.rules.builders import replicated_job, train_job, training_runtime
from tests.workloads.contract.probes import PROBES, contract_of


def node(**kw: Any) -> dict:
    return replicated_job("node", replicas=None, parallelism=None, backoff_limit=None, restart_policy=None, **kw)


def runtime(*jobs: dict, num_nodes: int | None = 4, **spec: Any) -> dict:
    obj = training_runtime(num_nodes=num_nodes, replicated_jobs=list(jobs) or [node()])
    obj["spec"].update(spec)
    return obj


def initialized() -> dict:
    init = replicated_job("dataset-initializer", replicas=None, parallelism=None)
    trainer = node()
    trainer["dependsOn"] = [{"name": "dataset-initializer", "status": "Complete"}]
    return runtime(init, trainer, podGroupPolicy={"coscheduling": {"scheduleTimeoutSeconds": 60}})


def mpi_runtime(**mpi: Any) -> dict:
    launcher = replicated_job("launcher", replicas=None, parallelism=None)
    launcher["dependsOn"] = [{"name": "node", "status": "Ready"}]
    obj = runtime(launcher, node(), podGroupPolicy={"volcano": {}})
    obj["spec"]["mlPolicy"] = {"numNodes": 4, "mpi": mpi}
    return obj


CASES = [
    # (upstream behaviour, TrainJob, its runtime, probe, expected)
    (
        "trainingruntime.go newRuntimeInfo: the TrainJob's numNodes",
        train_job(num_nodes=3),
        runtime(),
        "counts",
        {"node": 3},
    ),
    (
        "newRuntimeInfo: the runtime's mlPolicy.numNodes when the TrainJob sets none",
        train_job(num_nodes=None),
        runtime(num_nodes=5),
        "counts",
        {"node": 5},
    ),
    (
        "newRuntimeInfo: no runtime in the input, only the trainer nodes",
        train_job(num_nodes=3),
        None,
        "counts",
        {"node": 3},
    ),
    (
        "mpi.go: runLauncherAsNode runs numNodes − 1 node pods",
        train_job(num_nodes=None),
        mpi_runtime(runLauncherAsNode=True),
        "counts",
        {"launcher": 1, "node": 3},
    ),
    (
        "runtimes: a launcher waiting for Ready nodes",
        train_job(num_nodes=None),
        mpi_runtime(),
        "after",
        {"launcher": [(("node",), "Ready")]},
    ),
    (
        "runtimes: an initializer others wait on to Complete",
        train_job(),
        initialized(),
        "roles",
        {"dataset-initializer": "initializer", "node": "rank"},
    ),
    (
        "coscheduling.go Build: minMember Σ count over every pod set, initializers included",
        train_job(),
        initialized(),
        "groups",
        [("coscheduling", 5, "workload")],
    ),
    (
        "volcano.go Build: minMember counts the Ready-dependent launcher",
        train_job(num_nodes=None),
        mpi_runtime(),
        "groups",
        [("volcano", 5, "workload")],
    ),
    (
        "without podGroupPolicy: nothing admits the pods together",
        train_job(),
        runtime(),
        "admission",
        ("perPod", "none", None),
    ),
    (
        "kueue trainjob_controller.go PodSets: queue-labelled, one Workload",
        train_job(labels={vocab.QUEUE_LABEL: "q"}),
        runtime(),
        "admission",
        ("whole", "kueue", 4),
    ),
    (
        "pkg/runtime sets no restartPolicy: JobSet's webhook default OnFailure, then one failed child Job fails it",
        train_job(),
        runtime(),
        "steps",
        {"node": [("kubelet", "inPlace", 6), ("podController", "pod", 6), ("operator", "stop", None)]},
    ),
    (
        "JobSet's success: every child Job",
        train_job(),
        runtime(),
        "success",
        ("every child Job of the targets succeeds", ("node",)),
    ),
]


@pytest.mark.parametrize(("behaviour", "job", "runtime_obj", "probe", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_trainjob_reader_follows_upstream(
    behaviour: str, job: dict, runtime_obj: dict | None, probe: str, expected: Any
) -> None:
    objects = (runtime_obj,) if runtime_obj else ()
    assert PROBES[probe](contract_of(job, objects=objects)) == expected


def test_a_trainjob_points_at_the_runtime_its_pods_come_from() -> None:
    contract = contract_of(train_job(), objects=(runtime(),))
    assert str(contract.pod_sets[0].template_path) == "spec.template.spec.replicatedJobs[0].template.spec.template"
    assert "pod templates are read from ClusterTrainingRuntime torch-distributed" in contract.notes
