"""GANG107: a gang Kueue admits must not be placed pod by pod by Volcano."""

from __future__ import annotations

import pytest

from gpufleet.rules.api import CheckContext
from gpufleet.settings import rule_options
from tests.rules import builders as b
from tests.rules.helpers import paths

CODE = "GANG107"
QUEUE = {"kueue.x-k8s.io/queue-name": "research"}
SCHEDULER = "spec.template.spec.schedulerName"
GROUP = {"scheduling.k8s.io/group-name": "pg"}


@pytest.mark.parametrize(
    "job, objects, expected",
    [
        (b.batch_job(parallelism=4, labels=QUEUE, scheduler_name="volcano"), (), [SCHEDULER]),
        (b.batch_job(parallelism=4, labels=QUEUE), (), []),
        (b.batch_job(parallelism=4, scheduler_name="volcano"), (), []),
    ],
)
def test_a_queue_labelled_gang_sent_to_volcano_without_a_group_is_reported(job, objects, expected):
    assert paths(CODE, job, objects=objects) == expected


@pytest.mark.parametrize("min_member, expected", [(3, [SCHEDULER]), (4, []), (None, [SCHEDULER])])
def test_a_pod_group_in_the_run_must_hold_the_whole_gang(min_member, expected):
    job = b.batch_job(parallelism=4, labels=QUEUE)
    job["spec"]["template"] = b.pod_template(annotations=GROUP, scheduler_name="volcano")
    assert paths(CODE, job, objects=(b.pod_group("pg", min_member=min_member),)) == expected


def test_a_group_not_in_the_run_is_not_judged():
    job = b.batch_job(parallelism=4, labels=QUEUE)
    job["spec"]["template"] = b.pod_template(annotations=GROUP, scheduler_name="volcano")
    assert paths(CODE, job) == []


def test_other_volcano_scheduler_names_come_from_the_option():
    job = b.batch_job(parallelism=4, labels=QUEUE, scheduler_name="volcano-gpu")
    ctx = CheckContext(options=rule_options({CODE: {"volcanoSchedulers": ["volcano-gpu"]}}))
    assert paths(CODE, job) == []
    assert paths(CODE, job, ctx) == [SCHEDULER]
