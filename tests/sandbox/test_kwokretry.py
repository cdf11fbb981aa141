"""A rank whose pod-complete stage KWOK dropped (a 403 from a restarting API server) is found and touched."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from gpufleet.kubetypes.vocab import KWOK_COMPLETE_AFTER as COMPLETE_AFTER
from gpufleet.sandbox import kwokretry


def pod(
    ready_ago: float,
    runs: str | None = "30s",
    phase: str = "Running",
    retried: str | None = None,
    deleting: bool = False,
) -> dict:
    """Pod ``a-0`` of namespace alpha, Ready ``ready_ago`` seconds before now, finishing ``runs`` after that."""
    since = datetime.fromtimestamp(time.time() - ready_ago, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    notes = {**({COMPLETE_AFTER: runs} if runs else {}), **({kwokretry.RETRIED: retried} if retried else {})}
    meta = {
        "name": "a-0",
        "namespace": "alpha",
        "annotations": notes,
        **({"deletionTimestamp": since} if deleting else {}),
    }
    return {
        "metadata": meta,
        "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": since}]},
    }


@pytest.mark.parametrize(
    "shape, dropped",
    [
        ({"ready_ago": 100}, True),  # 30 s run + 15 s grace long past
        ({"ready_ago": 40}, False),  # within the grace: KWOK may still play it
        ({"ready_ago": 10}, False),  # still running its 30 s
        ({"ready_ago": 100, "runs": None}, False),  # a pod that never finishes by itself
        ({"ready_ago": 100, "runs": "soon"}, False),  # not a duration: KWOK would not play it either
        ({"ready_ago": 100, "phase": "Succeeded"}, False),
        ({"ready_ago": 100, "deleting": True}, False),
    ],
)
def test_only_a_running_rank_past_its_run_time_and_the_grace_is_overdue(shape, dropped):
    found = pod(**shape)  # built now: its Ready time is relative to the test's clock
    assert (kwokretry.overdue([found], time.time()) == [found]) is dropped


def test_a_touched_rank_is_overdue_again_only_once_its_delay_counted_from_the_touch_has_passed():
    now = time.time()
    assert kwokretry.touch(now) == {"metadata": {"annotations": {kwokretry.RETRIED: f"{now:.3f}"}}}
    assert kwokretry.overdue([pod(ready_ago=100, retried=f"{now - 20:.3f}")], now) == []  # KWOK's 30 s restarted
    late = pod(ready_ago=100, retried=f"{now - 50:.3f}")
    assert kwokretry.overdue([late], now) == [late]
