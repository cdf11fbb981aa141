"""A first model of one's own starts in the sandbox with no flag: examples/two-pools on the real engines.

The model (a Kueue pool of 16 x 8 H100, a Volcano pool of 8 x 8 A100, three teams in one cohort,
each able to borrow on both pools) renders a Volcano queue tree whose teams carry a capability.
The sandbox's Volcano (v1.14.1) checks each child's capability against its parent's as written;
the rendered parent carries the capability its subtree may hold, so ``sandbox up`` applies every
object with Volcano's own queue webhook on (no ``--volcano-without``), the gang-admission
controller on, as ``gpufleet sandbox up`` and ``gpufleet try`` start it. Then the example's two
jobs run whole: the Volcano Job (2 ranks of 8 A100 in team vision's queue) and the Kueue Job
(4 ranks of 8 H100 in team language's LocalQueue).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpufleet.sandbox.kube import wait_for
from gpufleet.sandbox.trial import TrialOptions, try_manifests
from gpufleet.sandbox.up import Options
from tests.e2e.sandbox_pool import pool_key

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "two-pools"
MODEL = EXAMPLE / "fleet.yaml"
FAST = TrialOptions(timeout=120, settle=10)

POOL = pool_key(MODEL, Options())


@pytest.fixture(scope="module")
def sandbox(sandbox_pool):
    with sandbox_pool.lease(MODEL, Options()) as sb:
        yield sb


def _job(name: str) -> dict:
    return yaml.safe_load((EXAMPLE / "jobs" / name).read_text())


def test_every_volcano_queue_is_open_with_volcanos_own_queue_check_on(sandbox):
    hooks = sandbox.kube.list("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration")
    assert "validatequeue.volcano.sh" in {w["name"] for h in hooks for w in h.get("webhooks", [])}
    teams = ("vision", "language", "speech")

    def open_queues() -> dict[str, dict] | None:
        queues = {q["metadata"]["name"]: q for q in sandbox.kube.list("scheduling.volcano.sh/v1beta1", "Queue")}
        return queues if all(queues.get(t, {}).get("status", {}).get("state") == "Open" for t in teams) else None

    queues = wait_for("the teams' Volcano queues Open", open_queues, timeout=60)
    parent = queues[queues["vision"]["spec"]["parent"]]
    assert parent["metadata"]["labels"]["gpufleet.dev/cohort"] == "research"
    assert parent["spec"]["capability"]["nvidia.com/gpu"] == "64"


@pytest.mark.parametrize("job", ["vision-vcjob.yaml", "language-job.yaml"])
def test_the_examples_jobs_run_whole(sandbox, job):
    result = try_manifests(sandbox.kube, [_job(job)], FAST)
    assert result.outcome == "ranWhole", result.as_dict()
