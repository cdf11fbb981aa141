"""The training-operator reader against training-operator v1.9.4, one upstream function per row."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.kubetypes import vocab
from tests.rules.builders import manifest, meta, pytorch_job, replica_spec
from tests.workloads.contract.probes import PROBES, contract_of

VOLCANO = {"trainingOperator": {"gangScheduler": "volcano"}}


def job(kind: str = "PyTorchJob", restart: str | None = None, workers: int | None = 3, **spec: Any) -> dict:
    """A training-operator job with a Master (Chief for TFJob; none for JAXJob) and Workers."""
    if kind == "PyTorchJob":
        obj = pytorch_job(
            workers=1 if workers is None else workers,
            restart_policy=restart,
            **{k: spec.pop(k) for k in ("min_available", "queue", "labels") if k in spec},
        )
        if workers is None:
            for replica in obj["spec"]["pytorchReplicaSpecs"].values():
                del replica["replicas"]
    else:
        key = {
            "JAXJob": "jaxReplicaSpecs",
            "TFJob": "tfReplicaSpecs",
            "XGBoostJob": "xgbReplicaSpecs",
            "PaddleJob": "paddleReplicaSpecs",
        }[kind]
        master = {"TFJob": "Chief", "JAXJob": None}.get(kind, "Master")
        specs = {"Worker": replica_spec(workers, restart)}
        if master:
            specs = {master: replica_spec(1, restart), **specs}
        obj = manifest("kubeflow.org/v1", kind, meta("job"), {key: specs})
    obj["spec"].update(spec)
    return obj


CASES = [
    (
        "setTypeNamesToCamelCase: a lower-case replica key is the operator's Worker",
        {
            "apiVersion": "kubeflow.org/v1",
            "kind": "PyTorchJob",
            "metadata": {"name": "pt"},
            "spec": {"pytorchReplicaSpecs": {"master": replica_spec(1, None), "worker": replica_spec(2, None)}},
        },
        {},
        "success",
        ("the Master succeeds", ("Master",)),
    ),
    (
        "paddlepaddle_defautls.go: a PaddleJob's elasticPolicy is elastic too",
        job("PaddleJob", elasticPolicy={"minReplicas": 2}),
        {},
        "admission",
        ("elastic", "none", 3),
    ),
    # (upstream behaviour, object, operator settings, probe, expected)
    ("*_defaults.go: replicas default 1", job(workers=None), {}, "counts", {"Master": 1, "Worker": 1}),
    (
        "pytorch_defaults.go: restartPolicy OnFailure, a failed rank restarts in place, then is replaced alone",
        job(),
        {},
        "steps",
        {
            "Master": [("kubelet", "inPlace", None), ("operator", "pod", None)],
            "Worker": [("kubelet", "inPlace", None), ("operator", "pod", None)],
        },
    ),
    (
        "paddle_defaults.go: restartPolicy OnFailure",
        job("PaddleJob"),
        {},
        "scope",
        {"Master": "inPlace", "Worker": "inPlace"},
    ),
    (
        "jax_defaults.go: restartPolicy Never, a failed pod fails the job",
        job("JAXJob"),
        {},
        "scope",
        {"Worker": "stop"},
    ),
    ("tensorflow_defaults.go: restartPolicy Never", job("TFJob"), {}, "scope", {"Chief": "stop", "Worker": "stop"}),
    ("xgboost_defaults.go: restartPolicy Never", job("XGBoostJob"), {}, "scope", {"Master": "stop", "Worker": "stop"}),
    (
        "train_util.go IsRetryableExitCode: ExitCode retries codes ≥ 128 alone, fails on the others",
        job(restart="ExitCode", runPolicy={"backoffLimit": 4}),
        {},
        "steps",
        {
            "Master": [("operator", "pod", 4), ("operator", "stop", None)],
            "Worker": [("operator", "pod", 4), ("operator", "stop", None)],
        },
    ),
    (
        "pod.go ReconcilePods: runPolicy.backoffLimit bounds the retries",
        job(runPolicy={"backoffLimit": 2}),
        {},
        "steps",
        {
            "Master": [("kubelet", "inPlace", 2), ("operator", "pod", 2)],
            "Worker": [("kubelet", "inPlace", 2), ("operator", "pod", 2)],
        },
    ),
    ("job.go DeletePodsAndServices: cleanPodPolicy None keeps the survivors", job(), {}, "survivors_stop", False),
    (
        "job.go DeletePodsAndServices: cleanPodPolicy All stops them",
        job(runPolicy={"cleanPodPolicy": "All"}),
        {},
        "survivors_stop",
        True,
    ),
    ("without --gang-scheduler-name: no PodGroup", job(), {}, "groups", []),
    ("job.go ReconcileJobs: PodGroup minimum Σ replicas", job(), VOLCANO, "groups", [("volcano", 4, "workload")]),
    (
        "job.go ReconcileJobs: schedulingPolicy.minAvailable wins",
        job(min_available=2),
        VOLCANO,
        "admission",
        ("partial", "volcano", 2),
    ),
    ('job.go ReconcileJobs: the Volcano queue falls back to "default"', job(), VOLCANO, "queue", ["default"]),
    ("job.go ReconcileJobs: schedulingPolicy.queue", job(queue="team-a"), VOLCANO, "queue", ["team-a"]),
    (
        "job.go ReconcileJobs: any other name is scheduler-plugins",
        job(),
        {"trainingOperator": {"gangScheduler": "scheduler-plugins"}},
        "groups",
        [("coscheduling", 4, "workload")],
    ),
    (
        "pytorch_defaults.go setElasticPolicy: elastic between min and max Workers",
        job(elasticPolicy={"minReplicas": 1, "maxReplicas": 5}),
        {},
        "admission",
        ("elastic", "none", 2),
    ),
    (
        "pytorchjob_controller.go UpdateJobStatus: the Master's success ends the job",
        job(),
        {},
        "success",
        ("the Master succeeds", ("Master",)),
    ),
    (
        "jaxjob_controller.go UpdateJobStatus: every Worker when there is no Master",
        job("JAXJob"),
        {},
        "success",
        ("every Worker succeeds", ("Worker",)),
    ),
    (
        "kueue kubeflowjob_controller.go PodSets: queue-labelled, one Workload",
        job(labels={vocab.QUEUE_LABEL: "q"}),
        {},
        "admission",
        ("whole", "kueue", 4),
    ),
]


@pytest.mark.parametrize(("behaviour", "obj", "operators", "probe", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_training_operator_reader_follows_upstream(
    behaviour: str, obj: dict, operators: dict, probe: str, expected: Any
) -> None:
    assert PROBES[probe](contract_of(obj, operators)) == expected
