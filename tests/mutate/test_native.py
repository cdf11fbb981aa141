"""The admission controller's defaulting for Kubernetes' own gang scheduling: a near-miss Job made whole, a native pool pinned."""

from __future__ import annotations

from typing import Any

import jsonpatch
import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.mutate import mutate
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.workloads.test_native import GANG, job

ON = ["GenericWorkload", "WorkloadWithJob"]


def context(
    version: str = "1.37", gates: list[str] = ON, system: str = "native", placement: str = "per-pod"
) -> FleetContext:
    return FleetContext.from_dict(
        {
            "version": 1,
            "fleet": "t",
            "kubernetesVersion": version,
            "workloadGates": gates,
            "teams": [
                {
                    "name": "research",
                    "namespaces": ["research"],
                    "localQueue": "research" if system == "kueue" else None,
                    "pools": ["b200"],
                },
                {"name": "other", "namespaces": ["other"], "localQueue": "other", "pools": ["h100"]},
            ],
            "pools": [
                {
                    "name": "b200",
                    "system": system,
                    "placement": placement,
                    "nodeCount": 100,
                    "allocatable": {"nvidia.com/gpu": "8"},
                    "nodeLabels": {"gpufleet.dev/pool": "b200"},
                },
                {
                    "name": "h100",
                    "system": "kueue",
                    "nodeCount": 10,
                    "allocatable": {"nvidia.com/gpu": "8"},
                    "nodeLabels": {"gpufleet.dev/pool": "h100"},
                },
            ],
        }
    )


def native_ops(obj: dict[str, Any], fleet: FleetContext, namespace: str = "research") -> list[dict[str, Any]]:
    return [
        op
        for op in mutate(obj, fleet, namespace)
        if op["path"].startswith(("/spec/scheduling", "/spec/completionMode"))
    ]


@pytest.mark.parametrize(
    ("version", "obj", "op"),
    [
        ("1.37", job(), {"op": "add", "path": "/spec/scheduling", "value": GANG}),
        ("1.36", job(mode=None), {"op": "add", "path": "/spec/completionMode", "value": "Indexed"}),
    ],
    ids=["137-spec-scheduling", "136-indexed"],
)
@pytest.mark.parametrize(
    ("system", "placement"), [("native", "per-pod"), ("kueue", "native")], ids=["alone", "under-kueue"]
)
def test_a_near_miss_job_bound_for_a_native_pool_gets_the_field_that_makes_it_a_gang(
    version, obj, op, system, placement
):
    assert native_ops(obj, context(version, system=system, placement=placement)) == [op]


@pytest.mark.parametrize(
    ("fleet", "namespace"),
    [
        (context(gates=[]), "research"),
        (context(gates=["GenericWorkload"]), "research"),
        (context(system="kueue"), "research"),
        (context(), "other"),
    ],
    ids=["gates-off", "job-gate-off", "per-pod-kueue-pool", "team-without-native-pool"],
)
def test_no_field_is_added_where_the_cluster_or_the_team_does_not_gang_jobs_natively(fleet, namespace):
    obj = job()
    obj["metadata"]["namespace"] = namespace
    assert native_ops(obj, fleet, namespace) == []


@pytest.mark.parametrize(
    "obj",
    [
        job(completions=64),
        job(scheduling=GANG),
        job(group="pg"),
        job(owned=True),
        job(scheduling={"schedulingPolicy": {"basic": {}}}),
    ],
    ids=["sweep", "already-gang", "own-group", "jobset-child", "basic-chosen"],
)
def test_a_job_that_is_no_near_miss_is_left_alone(obj):
    assert native_ops(obj, context()) == []


def test_a_native_pool_pins_every_pod_template_to_its_nodes_and_the_patch_is_idempotent():
    fleet = context()
    obj = job()
    ops = mutate(obj, fleet, "research")
    assert {"op": "add", "path": "/spec/template/spec/nodeSelector", "value": {"gpufleet.dev/pool": "b200"}} in ops
    assert mutate(jsonpatch.apply_patch(obj, ops), fleet, "research") == []


def test_the_mutated_job_is_one_the_rules_count_as_gang_placed():
    fleet = context()
    obj = job()
    obj["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": 8}}
    ctx = CheckContext(fleet=fleet)
    before = [f.code for f in engine.check_objects([obj], ctx, select=["GANG106"])]
    after = [
        f.code
        for f in engine.check_objects(
            [jsonpatch.apply_patch(obj, mutate(obj, fleet, "research"))], ctx, select=["GANG106"]
        )
    ]
    assert (before, after) == (["GANG106"], [])
