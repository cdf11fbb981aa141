"""One definition of "this is a gang" for every rule (``gpufleet.rules.gangs``, issue 19 item 4).

A parallel batch Job is a gang only when it asks for GPUs or names a gang scheduler or pod
group: an Indexed Job of CPU shards couples nothing, so no rule judges it as a gang.
"""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.rules.builders import meta, pod_template
from tests.rules.helpers import WITH_FLEET


def indexed_job(gpus=None, scheduler_name=None, backoff=20):
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta("shards", namespace="vision"),
        "spec": {
            "completionMode": "Indexed",
            "parallelism": 50,
            "completions": 50,
            "backoffLimit": backoff,
            "template": pod_template(restart_policy="OnFailure", cpu="2", gpus=gpus, scheduler_name=scheduler_name),
        },
    }


@pytest.mark.parametrize("ctx", [CheckContext(), WITH_FLEET], ids=["no-fleet", "fleet"])
def test_a_cpu_only_indexed_job_of_independent_shards_gets_no_gang_finding(ctx):
    assert [(f.code, str(f.path)) for f in engine.check_objects([indexed_job()], ctx)] == []


@pytest.mark.parametrize(
    "job", [indexed_job(gpus=1), indexed_job(scheduler_name="volcano")], ids=["gpus", "gang-scheduler"]
)
def test_the_same_job_asking_for_gpus_or_a_gang_scheduler_is_a_gang_again(job):
    found = {(f.code, str(f.path)) for f in engine.check_objects([job], WITH_FLEET)}
    # its backoffLimit (60) is GANG204's alone: one field, one fix (GANG203 judges whole-gang restart budgets)
    assert ("GANG204", "spec.backoffLimit") in found and ("GANG203", "spec.backoffLimit") not in found


def test_a_gpu_indexed_job_with_more_completions_than_parallelism_is_a_sweep_with_no_gang_finding():
    """Issue 32, item 2: indexes run a few at a time and none waits for the others."""
    job = indexed_job(gpus=1)
    job["spec"]["parallelism"] = 8
    codes = {f.code for f in engine.check_objects([job], WITH_FLEET)}
    assert not codes & {"GANG203", "GANG204", "GANG106", "GANG403"}
