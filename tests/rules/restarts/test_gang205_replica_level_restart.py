"""GANG205: Kubeflow replica types must not restart single ranks."""

from __future__ import annotations

import pytest

from tests.rules import builders as b
from tests.rules.helpers import fixed, paths

CODE = "GANG205"


@pytest.mark.parametrize(
    "policy, flagged", [("OnFailure", True), ("Always", True), ("ExitCode", True), ("Never", False), (None, False)]
)
def test_replica_restart_policies_that_restart_single_pods_are_flagged(policy, flagged):
    job = b.pytorch_job(master=None, restart_policy=policy)
    assert paths(CODE, job) == (["spec.pytorchReplicaSpecs.Worker.restartPolicy"] if flagged else [])


def test_an_mpi_launcher_may_restart():
    assert paths(CODE, b.mpi_job(restart_policy="OnFailure")) == ["spec.mpiReplicaSpecs.Worker.restartPolicy"]


def test_elastic_jobs_are_exempt():
    job = b.pytorch_job(restart_policy="OnFailure", annotations={"gpufleet.dev/elastic": "true"})
    assert paths(CODE, job) == []


def test_remediation_sets_never():
    out = fixed(CODE, b.pytorch_job(restart_policy="OnFailure"))
    assert {r: s["restartPolicy"] for r, s in out["spec"]["pytorchReplicaSpecs"].items()} == {
        "Master": "Never",
        "Worker": "Never",
    }
