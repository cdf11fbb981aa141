"""The fault tier's stand-in for a kubelet's retry works on the real KWOK: a touched rank finishes.

``gpufleet.sandbox.kwokretry`` touches a Running rank whose pod-complete stage KWOK dropped (a 403
from a restarting API server), trusting that an update makes KWOK play the stage again with its
delay counted from the update. This checks that trust on KWOK v0.8.0 without a fault: a rank is
touched part-way through its run time and finishes that run time after the touch, not before.
Shares the dev stack's sandbox (no controller) with the try, difftier and ownership modules.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gpufleet.kubetypes.vocab import KWOK_COMPLETE_AFTER as COMPLETE_AFTER
from gpufleet.sandbox import kwokretry
from gpufleet.sandbox.up import Options
from tests.e2e.sandbox_env import job
from tests.e2e.sandbox_pool import pool_key

DEV = Path(__file__).resolve().parents[2] / "stacks" / "dev.fleet.yaml"
POOL = pool_key(DEV, Options(controller=False))  # the try, difftier and ownership modules' sandbox

NAMESPACE = "kwok-retry"  # in no team: the default scheduler alone
RUNS = 20


@pytest.fixture(scope="module")
def sandbox(sandbox_pool):
    with sandbox_pool.lease(DEV, Options(controller=False)) as sb:
        sb.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
        yield sb


def _phase(sb) -> str | None:
    pods = sb.pods(NAMESPACE, app="ranked")
    return pods[0]["status"].get("phase") if pods else None


def test_a_rank_touched_mid_run_finishes_its_run_time_after_the_touch(sandbox):
    body = job("ranked", NAMESPACE, 1, gpus=0)
    body["spec"]["template"]["metadata"]["annotations"] = {COMPLETE_AFTER: f"{RUNS}s"}
    sandbox.apply(body)
    pod = sandbox.wait(
        "the rank Ready",
        lambda: next((p for p in sandbox.pods(NAMESPACE, app="ranked") if kwokretry.ready_since(p) is not None), None),
        timeout=60,
    )
    time.sleep(RUNS / 2)
    touched = time.time()
    sandbox.kube.core().patch_namespaced_pod(pod["metadata"]["name"], NAMESPACE, kwokretry.touch(touched))
    sandbox.wait("the rank Succeeded", lambda: _phase(sandbox) == "Succeeded", timeout=RUNS * 3)
    finished = time.time()
    assert finished - touched >= RUNS - 1, (
        f"finished {finished - touched:.1f} s after the touch: the touch did not restart the stage"
    )
    sandbox.kube.delete("batch/v1", "Job", "ranked", NAMESPACE)
