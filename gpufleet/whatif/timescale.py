"""The replay's time scale ``k``: trace seconds per wall second, and what it does to the engines.

A replay runs the trace ``k`` times faster than the cluster would: submit times and run
times are divided by ``k``, and so is every duration the engines apply to jobs, so that a
job meets each timer at the same point of its own life as on the cluster. Those are the
model's: Kueue's ``waitForPodsReady`` timeout and recovery timeout and its requeue backoff
(base and cap). What cannot be scaled are the engines' own periods (Volcano's schedule
period, 1 s in the sandbox, ``gpufleet.sandbox.volcano``; the kube-scheduler's and Kueue's
reaction times, well under a second on the sandbox): anything shorter than
:data:`ENGINE_FLOOR_SECONDS` after scaling would be decided by those periods instead of by
the trace, so :func:`check` refuses such a ``k``; the pods-ready timeout has a larger floor
(:data:`PODS_READY_FLOOR_SECONDS`) because a whole chain of controllers must act within it. Called by the CLI and the sandbox replay.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpufleet.model.fleet import Fleet
from gpufleet.whatif.trace import Trace

ENGINE_FLOOR_SECONDS = 2.0
"""The shortest wall time a run may take: twice Volcano's 1 s schedule period."""
PODS_READY_FLOOR_SECONDS = 10.0
"""The shortest wall time Kueue's pods-ready timeout may take. From bind to Kueue's ``PodsReady`` go KWOK's pod
start, the Job controller's ``status.ready`` (retried on conflicts with Kueue) and Kueue's reaction: at a load average
of about 10 on 2 cores, a 5-second timeout (k = 120 on a 10-minute one) evicted 1-pod jobs whose pods were Ready
(bench run of 2 Dec 2026, docs/whatif.md); 10 seconds evicted none in the worked example."""


TIMERS_ONLY = (
    "admission.waitForPodsReady.requeuingStrategy.backoffBaseSeconds",
    "admission.waitForPodsReady.requeuingStrategy.backoffMaxSeconds",
)
"""Scaled durations that are plain timers in Kueue (no pod has to start within them): exempt from the floor."""


@dataclass(frozen=True)
class Scaled:
    """One duration the engines apply, in trace seconds and as the sandbox runs it."""

    name: str
    trace_seconds: float
    wall_seconds: float


def _wall(seconds: float, k: float) -> int:
    return max(1, math.ceil(seconds / k))


def scaled_durations(fleet: Fleet, k: float) -> list[Scaled]:
    """Every model duration the replay divides by ``k``, as listed in the report."""
    wait = fleet.admission.wait_for_pods_ready
    requeue = wait.requeuing_strategy
    pairs = [
        ("admission.waitForPodsReady.timeout", wait.timeout),
        ("admission.waitForPodsReady.recoveryTimeout", wait.recovery_timeout),
        ("admission.waitForPodsReady.requeuingStrategy.backoffBaseSeconds", requeue.backoff_base_seconds),
        ("admission.waitForPodsReady.requeuingStrategy.backoffMaxSeconds", requeue.backoff_max_seconds),
    ]
    return [Scaled(name, float(v), float(_wall(v, k))) for name, v in pairs if v]


def scaled_fleet(fleet: Fleet, k: float) -> Fleet:
    """The model as the sandbox runs it: the same quota, its job-facing durations divided by ``k``."""
    wait = fleet.admission.wait_for_pods_ready
    requeue = wait.requeuing_strategy.model_copy(
        update={
            "backoff_base_seconds": _wall(wait.requeuing_strategy.backoff_base_seconds, k),
            "backoff_max_seconds": _wall(wait.requeuing_strategy.backoff_max_seconds, k),
        }
    )
    new_wait = wait.model_copy(
        update={
            "timeout": _wall(wait.timeout, k),
            "recovery_timeout": None if wait.recovery_timeout is None else _wall(wait.recovery_timeout, k),
            "requeuing_strategy": requeue,
        }
    )
    admission = fleet.admission.model_copy(
        update={"wait_for_pods_ready": new_wait, "cold_start_floor": _wall(fleet.admission.cold_start_floor, k)}
    )
    return fleet.model_copy(update={"admission": admission})


def limits(trace: Trace, fleet: Fleet) -> list[tuple[str, float, float]]:
    """(what, trace seconds, wall floor): each duration the replay must keep and the shortest wall time it may take."""
    run = min(trace.jobs, key=lambda j: j.run_seconds)
    out = [(f"runSeconds of job {run.name}", run.run_seconds, ENGINE_FLOOR_SECONDS)]
    for item in scaled_durations(fleet, 1.0):
        if item.name not in TIMERS_ONLY:
            out.append((item.name, item.trace_seconds, PODS_READY_FLOOR_SECONDS))
    return out


def largest_safe(trace: Trace, fleets: list[Fleet]) -> float:
    """The largest ``k`` :func:`check` accepts for this trace on these models."""
    return min(seconds / floor for f in fleets for _, seconds, floor in limits(trace, f))


def check(trace: Trace, fleets: list[Fleet], k: float) -> str | None:
    """Why ``k`` is unsafe for this trace on these models, or None."""
    if k <= 0:
        return "the time scale must be positive"
    for fleet in fleets:
        for what, seconds, floor in limits(trace, fleet):
            if seconds / k < floor:
                return (
                    f"at --time-scale {k:g}, {what} ({seconds:g} s) lasts {seconds / k:.2f} wall seconds, shorter "
                    f"than the sandbox can honour ({floor:g} s); use --time-scale {largest_safe(trace, fleets):g} "
                    "or less"
                )
    return None
