"""Issue 32, item 1 on the real engines: a launcher that dependsOn its workers is not in the gang at start.

Real kube-scheduler, Volcano (sandbox/engines) and KWOK nodes of 8 GPUs; the gang-admission
controller is not started (its defaulting is tests/mutate's). A Volcano Job of 2 workers and
a launcher task with ``dependsOn: {name: [worker]}``: the job controller creates the
launcher's pod only once the workers run, so

- ``minAvailable: 2`` (the workers) runs whole: the 2 workers, then the launcher, are bound,
  and ``gpufleet lint``'s rules say nothing (GANG001, GANG002);
- ``minAvailable: 3`` (workers + launcher) never starts: the 2 worker pods are created and
  never bound (the PodGroup stays Inqueue: "3/2 tasks in gang unschedulable: pod group is not
  ready, 2 Pending, 3 minAvailable"), and the rules say GANG002 with the fix 2.
"""

from __future__ import annotations

import copy

import pytest

from gpufleet.rules import engine
from tests.e2e.sandbox_env import VC_API, vcjob, volcano_team

VC_NS = "research-vc"
SIZE_RULES = ["GANG001", "GANG002"]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    with volcano_team(tmp_path_factory.mktemp("depends-on"), nodes=4, gpus=32, namespace=VC_NS) as sb:
        yield sb


def launcher_job(name: str, min_available: int) -> dict:
    """2 workers and a launcher that dependsOn them, each pod 1 GPU."""
    job = vcjob(name, VC_NS, pods=2, gpus=1, queue="research", min_available=min_available)
    launcher = copy.deepcopy(job["spec"]["tasks"][0])
    launcher.update(name="launcher", replicas=1, dependsOn={"name": ["worker"]})
    job["spec"]["tasks"].insert(0, launcher)
    return job


def size_findings(job: dict) -> list[tuple[str, str]]:
    return [(f.code, str(f.path)) for f in engine.check_objects([job], select=SIZE_RULES)]


def test_minimum_of_the_workers_runs_whole_and_lints_clean(sandbox):
    job = launcher_job("workers-min", 2)
    assert size_findings(job) == []
    sandbox.apply(job)
    sandbox.wait(
        "the 2 workers and the launcher bound", lambda: len(sandbox.bound(VC_NS, app="workers-min")) == 3, timeout=180
    )


def test_minimum_counting_the_launcher_never_starts_and_lint_says_gang002_with_the_fix(sandbox):
    job = launcher_job("all-min", 3)
    assert size_findings(job) == [("GANG002", "spec.minAvailable")]
    fixed = engine.remediate(copy.deepcopy(job), select=["GANG002"])
    assert fixed["spec"]["minAvailable"] == 2
    sandbox.apply_volcano_job(job, settle=30)
    assert sandbox.bound(VC_NS, app="all-min") == []
    vc = sandbox.get(VC_API, "Job", "all-min", VC_NS)
    assert vc is not None and vc.get("status", {}).get("state", {}).get("phase") in ("Pending", "Inqueue")
