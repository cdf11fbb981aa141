"""GANG106 on a cluster that gang-schedules Jobs itself: a qualifying Job has a route, a near miss gets the field that makes it one."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.workloads.test_native import GANG, job

ON = ["GenericWorkload", "WorkloadWithJob"]


def cluster(version: str | None, gates: list[str]) -> CheckContext:
    data: dict[str, Any] = {
        "version": 1,
        "fleet": "native",
        "teams": [
            {
                "name": "research",
                "namespaces": ["research"],
                "localQueue": None,
                "volcanoQueue": None,
                "pools": ["b200"],
            }
        ],
        "pools": [
            {
                "name": "b200",
                "system": "native",
                "nodeCount": 100,
                "allocatable": {"nvidia.com/gpu": "8"},
                "nodeLabels": {"gpufleet.dev/pool": "b200"},
            }
        ],
        "manageJobsWithoutQueueName": True,
        "kueueManagedNamespaces": [],
    }
    if version is not None:
        data.update(kubernetesVersion=version, workloadGates=gates)
    return CheckContext(fleet=FleetContext.from_dict(data))


def gpu_job(**kwargs: Any) -> dict[str, Any]:
    obj = job(parallelism=64, completions=kwargs.pop("completions", 64), **kwargs)
    obj["spec"]["backoffLimit"] = 0
    obj["spec"]["template"]["spec"].update(
        restartPolicy="Never",
        containers=[{"name": "w", "image": "t:1", "resources": {"limits": {"nvidia.com/gpu": 8}}}],
    )
    return obj


def gang106(obj: dict[str, Any], ctx: CheckContext) -> list[str]:
    return [f.fix for f in engine.check_objects([obj], ctx, select=["GANG106"])]


@pytest.mark.parametrize(
    ("version", "obj"),
    [("1.36", gpu_job()), ("1.37", gpu_job(scheduling=GANG))],
    ids=["136-indexed", "137-spec-scheduling"],
)
def test_a_job_the_job_controller_gangs_has_a_route(version, obj):
    assert gang106(obj, cluster(version, ON)) == []


@pytest.mark.parametrize(
    ("version", "obj", "says"),
    [
        ("1.36", gpu_job(mode=None), "completionMode: Indexed"),
        ("1.37", gpu_job(), "spec.scheduling.schedulingPolicy.gang"),
        ("1.37", gpu_job(completions=None), "with completions equal to parallelism"),
    ],
    ids=["136-not-indexed", "137-no-spec-scheduling", "137-no-completions"],
)
def test_a_job_that_does_not_qualify_binds_pod_by_pod_and_the_fix_names_the_field(version, obj, says):
    fixes = gang106(obj, cluster(version, ON))
    assert len(fixes) == 1 and says in fixes[0] and "Kubernetes' own gang scheduling" in fixes[0]
    [message] = [f.message for f in engine.check_objects([obj], cluster(version, ON), select=["GANG106"])]
    assert f"no Job the Kubernetes {version} Job controller gang-schedules" in message


@pytest.mark.parametrize(
    "ctx",
    [cluster("1.36", []), cluster("1.36", ["GenericWorkload"]), cluster(None, [])],
    ids=["gates-off", "job-gate-off", "older-context"],
)
def test_the_same_indexed_job_without_the_gates_is_judged_as_before(ctx):
    assert len(gang106(gpu_job(), ctx)) == 1


def test_the_admission_controller_adds_the_field_only_to_a_near_miss():
    near, far = gang106(gpu_job(), cluster("1.37", ON)), gang106(gpu_job(completions=None), cluster("1.37", ON))
    assert ["adds it on CREATE" in f for f in near + far] == [True, False]


@pytest.mark.parametrize("version", ["1.36", "1.37"])
def test_a_sweep_is_no_gang_on_a_native_cluster_either(version):
    assert gang106(gpu_job(completions=640, mode="Indexed"), cluster(version, ON)) == []


@pytest.mark.parametrize(
    ("ctx", "obj", "path", "says"),
    [
        (cluster("1.37", []), gpu_job(group="pg"), "spec.template.spec.schedulingGroup", "without GenericWorkload"),
        (cluster("1.37", ["GenericWorkload"]), gpu_job(scheduling=GANG), "spec.scheduling", "forbids it"),
        (cluster("1.36", ON), gpu_job(scheduling=GANG, mode=None), "spec.scheduling", "has no spec.scheduling on Jobs"),
    ],
    ids=["group-without-generic-workload", "spec-scheduling-without-workload-with-job", "spec-scheduling-on-136"],
)
def test_a_gang_asking_for_native_gang_scheduling_the_cluster_does_not_run_is_reported_at_the_field(
    ctx, obj, path, says
):
    [finding] = engine.check_objects([obj], ctx, select=["GANG106"])
    assert (finding.path, says in finding.message) == (path, True)


@pytest.mark.parametrize("obj", [gpu_job(group="pg"), gpu_job(scheduling=GANG)], ids=["group", "spec-scheduling"])
def test_the_same_ask_counts_as_a_route_where_the_cluster_runs_it_or_is_unknown(obj):
    assert gang106(obj, cluster("1.37", ON)) == [] and gang106(obj, CheckContext()) == []
