"""GANG402: a pod larger than every node of the pools it may land on."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from tests.rules import builders as b
from tests.rules import fleets


def gang402(obj: dict, **fleet) -> list[str]:
    return [f.path for f in engine.check_object(obj, fleets.ctx(**fleet), select=["GANG402"])]


@pytest.mark.parametrize(
    "gpus, namespace, expected",
    [
        (8, "research", []),
        (9, "research", ["spec.tasks[0].template.spec.containers[0].resources.requests[nvidia.com/gpu]"]),
        (8, "elsewhere", []),  # any pool: h100 has 8
        (9, "elsewhere", ["spec.tasks[0].template.spec.containers[0].resources.requests[nvidia.com/gpu]"]),
    ],
)
def test_a_pod_must_fit_one_node_of_its_candidate_pools(gpus, namespace, expected):
    job = b.volcano_job(tasks=[b.task(gpus=gpus)], namespace=namespace)
    assert gang402(job) == expected


def test_a_selector_onto_the_small_pool_is_judged_against_that_pool():
    job = b.batch_job(gpus=8)
    job["spec"]["template"]["spec"]["nodeSelector"] = {"gpufleet.dev/pool": "l4"}
    assert gang402(job) == ["spec.template.spec.containers[0].resources.requests[nvidia.com/gpu]"]


def test_cpu_and_memory_are_checked_against_allocatable_too():
    job = b.volcano_job(tasks=[b.task(cpu="200", memory="2000Gi")])
    assert sorted(gang402(job)) == [
        "spec.tasks[0].template.spec.containers[0].resources.requests[cpu]",
        "spec.tasks[0].template.spec.containers[0].resources.requests[memory]",
    ]


def test_a_gpu_the_pool_does_not_have_never_fits():
    job = b.volcano_job(tasks=[b.task()])
    job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"amd.com/gpu": 1}}
    assert gang402(job) == ["spec.tasks[0].template.spec.containers[0].resources.limits[amd.com/gpu]"]


def test_without_a_fleet_the_rule_stays_quiet():
    job = b.volcano_job(tasks=[b.task(gpus=64)])
    assert engine.check_object(job, select=["GANG402"]) == []


@pytest.mark.parametrize(
    "job, says",
    [
        (b.batch_job(gpus=9), "each pod asks for 9 nvidia.com/gpu"),
        (b.volcano_job(tasks=[b.task(gpus=9)], namespace="research"), "each worker pod asks for 9 nvidia.com/gpu"),
    ],
    ids=["a template without a role", "a Volcano task's template"],
)
def test_the_message_names_the_pods_once(job, says):
    [finding] = engine.check_object(job, fleets.ctx(), select=["GANG402"])
    assert says in finding.message and "pod pod" not in finding.message
