"""GANG001: a gang minimum below the pod count is flagged, unless the job is elastic."""

from __future__ import annotations

import pytest

from tests.rules import builders as b
from tests.rules.helpers import fixed, paths

CODE = "GANG001"


@pytest.mark.parametrize(
    "job, expected",
    [
        (b.volcano_job(tasks=[b.task(replicas=4)], min_available=2), ["spec.minAvailable"]),
        (b.volcano_job(tasks=[b.task(replicas=4)], min_available=4), []),
        (b.volcano_job(tasks=[b.task(replicas=4)]), []),
        (b.volcano_job(tasks=[b.task(replicas=4)], min_available=0), []),
        (b.volcano_job(tasks=[b.task("m"), b.task(replicas=4, min_available=3)]), ["spec.tasks[1].minAvailable"]),
        (b.volcano_job(tasks=[b.task(replicas=4, min_available=0)]), ["spec.tasks[0].minAvailable"]),
        (b.pytorch_job(workers=3, min_available=2), ["spec.runPolicy.schedulingPolicy.minAvailable"]),
        (b.pytorch_job(workers=3, min_available=4), []),
        (b.mpi_job(workers=2, min_available=1), ["spec.runPolicy.schedulingPolicy.minAvailable"]),
    ],
)
def test_a_job_whose_min_is_below_its_replicas_is_flagged(job, expected):
    assert paths(CODE, job) == expected


@pytest.mark.parametrize(
    "job",
    [
        b.volcano_job(tasks=[b.task(replicas=8)], min_available=2, annotations={"gpufleet.dev/elastic": "true"}),
        b.pytorch_job(workers=3, min_available=1, annotations={"gpufleet.dev/elastic": "true"}),
    ],
)
def test_an_elastic_job_may_start_below_its_replicas(job):
    assert paths(CODE, job) == []


def test_a_pytorch_job_with_an_elastic_policy_is_elastic():
    job = b.pytorch_job(workers=3, min_available=1)
    job["spec"]["elasticPolicy"] = {"minReplicas": 1, "maxReplicas": 4}
    assert paths(CODE, job) == []


def test_a_pod_group_is_compared_with_the_pods_that_join_it():
    group = b.pod_group("nginx", min_member=3, flavor="coscheduling")
    assert paths(CODE, group, objects=(b.deployment("nginx", replicas=6, group="nginx"),)) == ["spec.minMember"]
    assert paths(CODE, group, objects=(b.deployment("nginx", replicas=3, group="nginx"),)) == []
    assert paths(CODE, group) == []


def test_a_pod_group_in_another_namespace_does_not_count():
    group = b.pod_group("nginx", min_member=3, flavor="coscheduling")
    assert paths(CODE, group, objects=(b.deployment("nginx", replicas=6, group="nginx", namespace="other"),)) == []


def test_a_kueue_pod_group_total_below_its_pods_is_flagged_on_each_pod():
    pods = [b.pod(f"p{i}", group="g", total=2, queue="q") for i in range(3)]
    assert paths(CODE, pods[0], objects=tuple(pods[1:])) == [
        "metadata.annotations[kueue.x-k8s.io/pod-group-total-count]"
    ]


@pytest.mark.parametrize(
    "job, field, value",
    [
        (b.volcano_job(tasks=[b.task(replicas=4, min_available=1)], min_available=2), ("spec", "minAvailable"), 4),
        (b.pytorch_job(workers=3, min_available=2), ("spec", "runPolicy", "schedulingPolicy", "minAvailable"), 4),
    ],
)
def test_remediation_raises_the_minimum_to_the_pod_count(job, field, value):
    out = fixed(CODE, job)
    node = out
    for part in field:
        node = node[part]
    assert node == value and paths(CODE, out) == []


def _launcher_job(min_available):
    """2 workers and a launcher that dependsOn them (its pod is created once they run)."""
    launcher = {**b.task("launcher", replicas=1), "dependsOn": {"name": ["worker"]}}
    return b.volcano_job(tasks=[launcher, b.task("worker", replicas=2)], min_available=min_available)


@pytest.mark.parametrize("min_available, expected", [(2, []), (1, ["spec.minAvailable"])])
def test_a_dependent_task_is_not_counted_in_the_pods_the_job_starts_with(min_available, expected):
    assert paths(CODE, _launcher_job(min_available)) == expected


def test_the_fix_for_a_job_with_a_dependent_launcher_is_the_workers_not_workers_plus_launcher():
    out = fixed(CODE, _launcher_job(1))
    assert out["spec"]["minAvailable"] == 2
