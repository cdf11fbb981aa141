"""Issue 32, item 8 on the real engines: a Volcano task's minPartitions below totalPartitions starts part of the job.

Real kube-scheduler, Volcano (sandbox/engines) and KWOK nodes of 8 GPUs; the gang-admission
controller is not started. A pool of 2 nodes (16 GPUs) and a Volcano Job of one task of
4 pods × 8 GPUs in 2 partitions of 2 pods, with ``spec.minAvailable`` unset (Volcano's
webhook derives it):

- ``minPartitions: 1``: Volcano's webhook writes the task's minAvailable as 1×2 and the
  job's as 2, so the scheduler binds 2 of the 4 pods (16 of 32 GPUs) and the other 2 stay
  Pending: a fixed-size job started with half its ranks. GANG005 reports it with the fix
  ``minPartitions: 2``;
- ``minPartitions: 2`` (every partition): no pod is bound (the whole job does not fit),
  and GANG005 says nothing.
"""

from __future__ import annotations

import copy

import pytest

from gpufleet.rules import engine
from tests.e2e.sandbox_env import VC_API, vcjob, volcano_team

VC_NS = "research-vc"


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    with volcano_team(tmp_path_factory.mktemp("partitions"), nodes=2, gpus=16, namespace=VC_NS) as sb:
        yield sb


def partitioned(name: str, least: int) -> dict:
    """4 pods of 8 GPUs in 2 partitions of 2; spec.minAvailable left to Volcano's webhook."""
    job = vcjob(name, VC_NS, pods=4, gpus=8, queue="research")
    del job["spec"]["minAvailable"]
    job["spec"]["tasks"][0]["partitionPolicy"] = {"totalPartitions": 2, "partitionSize": 2, "minPartitions": least}
    return job


def gang005(job: dict) -> list[str]:
    return [str(f.path) for f in engine.check_objects([job], select=["GANG005"])]


def test_every_partition_in_the_gang_binds_nothing_until_the_whole_job_fits_and_lints_clean(sandbox):
    job = partitioned("whole", 2)
    assert gang005(job) == []
    sandbox.apply_volcano_job(job, settle=20)
    assert sandbox.bound(VC_NS, app="whole") == []


def test_one_partition_of_two_starts_half_the_job_and_lint_says_gang005_with_the_fix(sandbox):
    job = partitioned("half", 1)
    assert gang005(job) == ["spec.tasks[0].partitionPolicy.minPartitions"]
    fixed = engine.remediate(copy.deepcopy(job), select=["GANG005"])
    assert fixed["spec"]["tasks"][0]["partitionPolicy"]["minPartitions"] == 2
    sandbox.apply(job)
    sandbox.wait("2 of the 4 pods bound", lambda: len(sandbox.bound(VC_NS, app="half")) == 2, timeout=180)
    sandbox.settle(15)
    assert len(sandbox.bound(VC_NS, app="half")) == 2 and len(sandbox.pods(VC_NS, app="half")) == 4
    vc = sandbox.get(VC_API, "Job", "half", VC_NS)
    assert vc["spec"]["minAvailable"] == 2 and vc["spec"]["tasks"][0]["minAvailable"] == 2
