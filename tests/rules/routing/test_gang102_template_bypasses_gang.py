"""GANG102: a template naming another scheduler than its gang's is flagged."""

from __future__ import annotations

import pytest

from tests.rules import builders as b
from tests.rules.helpers import WITH_FLEET, paths

CODE = "GANG102"


@pytest.mark.parametrize(
    "tasks, expected",
    [
        ([b.task("m", scheduler_name="default-scheduler"), b.task()], ["spec.tasks[0].template.spec.schedulerName"]),
        ([b.task("m", scheduler_name="volcano"), b.task()], []),
        ([b.task("m"), b.task()], []),
    ],
)
def test_a_volcano_task_template_naming_another_scheduler_bypasses_the_gang(tasks, expected):
    assert paths(CODE, b.volcano_job(tasks=tasks)) == expected


def test_the_jobs_own_volcano_scheduler_name_is_the_gang_scheduler():
    job = b.volcano_job(scheduler_name="volcano-gpu", tasks=[b.task(scheduler_name="volcano")])
    from gpufleet.rules.api import CheckContext
    from gpufleet.settings import rule_options

    ctx = CheckContext(options=rule_options({CODE: {"volcanoSchedulers": ["volcano", "volcano-gpu"]}}))
    assert paths(CODE, job, ctx) == ["spec.tasks[0].template.spec.schedulerName"]


@pytest.mark.parametrize(
    "obj, ctx, expected",
    [
        (
            b.pytorch_job(master=None, queue="research", scheduler_name="default-scheduler"),
            None,
            ["spec.pytorchReplicaSpecs.Worker.template.spec.schedulerName"],
        ),
        (b.pytorch_job(master=None, scheduler_name="default-scheduler"), None, []),
        (
            b.jobset(namespace="sim", replicated_jobs=[b.replicated_job(scheduler_name="other")]),
            WITH_FLEET,
            ["spec.replicatedJobs[0].template.spec.template.spec.schedulerName"],
        ),
        (b.jobset(namespace="vision", replicated_jobs=[b.replicated_job(scheduler_name="other")]), WITH_FLEET, []),
    ],
)
def test_workloads_aimed_at_volcano_must_not_name_another_scheduler(obj, ctx, expected):
    assert paths(CODE, obj, *([ctx] if ctx else [])) == expected
