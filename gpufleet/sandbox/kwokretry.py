"""Retry of KWOK's pod-complete stage when the API server dropped it: what a kubelet would do.

KWOK v0.8.0 retries a failed stage only when the error is a refused connection, a timeout, 503 or
429 (``shouldRetry``, ``pkg/kwok/controllers/utils.go``). A kube-apiserver that has just restarted
answers ``403 ... not yet ready to handle request`` until its caches are synced, and KWOK then drops
the stage for good: the pod stays Running forever and its job never finishes (the fault tier saw
it: seed 30, ``beta/k2``, after the API server's restart). A kubelet keeps reporting a finished
container until the API server takes it, so the sandbox does that part: a pod that carries
:data:`~gpufleet.kubetypes.vocab.KWOK_COMPLETE_AFTER` and has been Ready past its run time plus a grace is
touched (an annotation), KWOK sees the update and plays the stage again, its delay counted anew from
the touch: a touched pod is touched again only once that delay and the grace have passed (every update
restarts KWOK's delay, so touching sooner would postpone the finish for ever).
Called by :mod:`gpufleet.sandbox.chaos` while it waits for the jobs to finish; every touch is counted
in its report.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable

from gpufleet.kubetypes.durations import DurationError, parse_seconds
from gpufleet.kubetypes.vocab import KWOK_COMPLETE_AFTER as COMPLETE_AFTER
from gpufleet.kubetypes.vocab import KWOK_RETRIED

RETRIED = KWOK_RETRIED
"""The annotation a touch writes: when (seconds since the epoch)."""
GRACE = 15.0
"""Seconds past a pod's run time before it counts as dropped (KWOK plays a due stage within a second)."""


def ready_since(pod: dict[str, Any]) -> float | None:
    """When ``pod`` became Ready (seconds since the epoch), None while it is not."""
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if (
            condition.get("type") == "Ready"
            and condition.get("status") == "True"
            and condition.get("lastTransitionTime")
        ):
            return datetime.fromisoformat(str(condition["lastTransitionTime"]).replace("Z", "+00:00")).timestamp()
    return None


def overdue(pods: Iterable[dict[str, Any]], now: float, grace: float = GRACE) -> list[dict[str, Any]]:
    """The Running pods whose pod-complete stage is past due by more than ``grace`` seconds at ``now`` (epoch)."""
    out = []
    for pod in pods:
        meta = pod.get("metadata") or {}
        after = (meta.get("annotations") or {}).get(COMPLETE_AFTER)
        since = ready_since(pod)
        touched = (meta.get("annotations") or {}).get(RETRIED)
        if since is not None and touched is not None:
            since = max(since, float(touched))
        if (
            after is None
            or since is None
            or meta.get("deletionTimestamp")
            or (pod.get("status") or {}).get("phase") != "Running"
        ):
            continue
        try:
            due = since + parse_seconds(str(after))
        except DurationError:
            continue
        if now > due + grace:
            out.append(pod)
    return out


def touch(now: float) -> dict[str, Any]:
    """The merge patch that makes KWOK look at a pod again, at ``now`` (seconds since the epoch)."""
    return {"metadata": {"annotations": {RETRIED: f"{now:.3f}"}}}
