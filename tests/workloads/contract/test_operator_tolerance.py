"""The operator readers tolerate a malformed value at any field (schema errors are GANG601's business, not a crash)."""

from __future__ import annotations

import copy
from typing import Any, Iterator

import pytest

from gpufleet.workloads.contract.registry import Run, read
from gpufleet.workloads.contract.types import Contract
from tests.rules.builders import jobset, mpi_job, pytorch_job, train_job, training_runtime
from tests.workloads.contract.probes import lws, profile, ray_cluster, ray_job, worker_group

JUNK: tuple[Any, ...] = ("x", 3, None, [], {}, [1, "a"], True, -5)
GANGS = profile(
    **{
        key: {"gangScheduler": "volcano", "featureGates": ["RestartJob", "RayMultiHostIndexing"]}
        for key in ("jobset", "mpiOperator", "trainingOperator", "leaderworkerset", "kuberay")
    }
)
OBJECTS = [
    jobset(failure_policy={"maxRestarts": 2, "rules": [{"action": "RestartJob", "targetReplicatedJobs": ["workers"]}]}),
    mpi_job(),
    {**mpi_job(), "apiVersion": "kubeflow.org/v1"},
    pytorch_job(),
    lws(),
    ray_cluster(worker_group(minReplicas=1, numOfHosts=2)),
    ray_job(),
    train_job(),
    training_runtime(),
]


def paths(obj: Any, prefix: tuple = ()) -> Iterator[tuple]:
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for key, value in items:
        yield (*prefix, key)
        yield from paths(value, (*prefix, key))


def broken(obj: dict, path: tuple, value: Any) -> dict:
    out = copy.deepcopy(obj)
    at = out
    for key in path[:-1]:
        at = at[key]
    at[path[-1]] = value
    return out


@pytest.mark.parametrize("obj", OBJECTS, ids=[f"{o['kind']} {o['apiVersion']}" for o in OBJECTS])
def test_a_reader_never_crashes_on_a_malformed_field(obj: dict) -> None:
    runtime = training_runtime()
    for path in paths(obj):
        for value in JUNK:
            bad = broken(obj, path, value)
            for operators in (profile(), GANGS):
                assert isinstance(read(bad, Run(objects=(bad, runtime), operators=operators)), Contract)
