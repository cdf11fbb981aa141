"""GANG005: a Volcano task's minPartitions below totalPartitions starts a fixed-size job with part of its pods."""

from __future__ import annotations

import pytest

from tests.rules import builders as b
from tests.rules.helpers import fixed, paths

CODE = "GANG005"
AT = "spec.tasks[0].partitionPolicy.minPartitions"


def partitioned(least: int | None, job_min: int | None = None, task_min: int | None = None, **job) -> dict:
    task = b.task(replicas=8, min_available=task_min)
    task["partitionPolicy"] = {
        "totalPartitions": 4,
        "partitionSize": 2,
        **({"minPartitions": least} if least is not None else {}),
    }
    return b.volcano_job(tasks=[task], min_available=job_min, **job)


@pytest.mark.parametrize(
    "least, job_min, expected",
    [
        (None, None, []),
        (4, None, []),
        (1, None, [AT]),
        (3, None, [AT]),
        (2, 0, [AT]),
        (2, 8, []),
    ],
)
def test_a_minimum_below_every_partition_is_flagged_unless_the_job_minimum_holds_the_gang(least, job_min, expected):
    assert paths(CODE, partitioned(least, job_min)) == expected


def test_an_elastic_job_may_start_on_part_of_its_partitions():
    assert paths(CODE, partitioned(2, annotations={"gpufleet.dev/elastic": "true"})) == []


def test_remediation_asks_for_every_partition_and_keeps_the_task_minimum_the_webhook_requires():
    task = fixed(CODE, partitioned(2, task_min=4))["spec"]["tasks"][0]
    assert task["partitionPolicy"]["minPartitions"] == 4 and task["minAvailable"] == 8
