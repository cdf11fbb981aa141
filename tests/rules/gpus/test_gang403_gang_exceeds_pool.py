"""GANG403: a gang's minimum against its pools' total GPUs and whole-pod packing."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from gpufleet.rules.gpus.gang403_gang_exceeds_pool import Group, minimum_pods
from tests.rules import builders as b
from tests.rules import fleets


def gang403(obj: dict) -> list[str]:
    return [f.message for f in engine.check_object(obj, fleets.ctx(), select=["GANG403"])]


@pytest.mark.parametrize(
    "replicas, gpus, problem",
    [
        (4, 8, None),  # 32 GPUs on 4 x 8: exact fit
        (5, 8, "needs 40"),  # more GPUs than the pool
        (8, 4, None),  # two per node
        (9, 4, "needs 36"),
        (4, 5, None),  # one per node, 4 nodes
        (5, 5, "5 pods of at least 5"),  # 25 <= 32 GPUs, but only one 5-GPU pod per node
        (6, 3, None),  # 18 GPUs, two 3-GPU pods per node: 8 slots
        (9, 3, "9 pods of at least 3"),
    ],
)
def test_the_gang_must_fit_in_total_and_with_whole_pods_per_node(replicas, gpus, problem):
    job = b.volcano_job(tasks=[b.task(replicas=replicas, gpus=gpus)], min_available=replicas)
    messages = gang403(job)
    assert (messages == []) if problem is None else (len(messages) == 1 and problem in messages[0])


def test_an_elastic_minimum_is_judged_by_the_pods_it_needs():
    job = b.volcano_job(
        tasks=[b.task(replicas=8, gpus=8)], min_available=4, annotations={"gpufleet.dev/elastic": "true"}
    )
    assert gang403(job) == []


def test_the_minimum_takes_the_pods_with_the_fewest_gpus():
    groups = [Group(None, 8, 2, ()), Group(None, 0, 1, ()), Group(None, 2, 3, ())]  # type: ignore[arg-type]
    assert [(g.gpus, g.count) for g in minimum_pods(groups, 3)] == [(2, 2)]


def test_a_pod_larger_than_any_node_is_left_to_gang402():
    job = b.volcano_job(tasks=[b.task(replicas=8, gpus=16)])
    assert gang403(job) == []


def test_a_non_gang_job_is_not_checked():
    assert gang403(b.batch_job(parallelism=1, gpus=8)) == []
