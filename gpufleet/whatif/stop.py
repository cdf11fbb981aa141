"""When a replay stops: the default horizon, its cap, and the warning when a replay was cut short.

Without ``--horizon`` a replay runs until every job has **finished** (or was refused by the API server), or until it is
**stuck**: every job submitted, no pod of any replayed job on a node, and nothing observed for a quiet window
(``QUIET_FLOOR_WALL`` wall seconds, plus the longest scaled engine timer, a requeue backoff's cap, once a job was
evicted): the jobs still waiting then can never start under this model. A job larger than
anything its queue could ever admit ends the replay this way once the others have finished. Either way it stops at the
**cap**, twice the trace's last submission plus every job's start and run time back to back (``default_cap``): more
than any order of the jobs needs, one after another; the report states the cap and warns when it cut the replay short.
With ``--horizon`` the replay stops there (or once every job finished), and warns when jobs were still waiting.
Pure: the replay loop (``gpufleet.sandbox.replay``) asks :func:`reason` about once a tenth of a wall second; the report
(:mod:`gpufleet.whatif.report`) asks :func:`warning`.
"""

from __future__ import annotations

from gpufleet.whatif.observed import REFUSED, JobLog, ReplayLog
from gpufleet.whatif.trace import Trace

FINISHED, STUCK, CAP, HORIZON = "finished", "stuck", "cap", "horizon"
STOPS = (FINISHED, STUCK, CAP, HORIZON)
QUIET_FLOOR_WALL = 20.0
"""Wall seconds of nothing happening (beyond the engines' longest timer after an eviction) after which a replay is
stuck: the engines react to the change that lets a waiting job in within about a second, even at a load average of 9
(docs/whatif.md, "The time scale")."""


def default_cap(trace: Trace) -> float:
    """Twice (the last submission + every job's start and run time, one after another), in trace seconds."""
    last = max((j.submit_seconds for j in trace.jobs), default=0.0)
    return 2.0 * (last + sum(j.run_seconds + (j.start_seconds or 0.0) for j in trace.jobs))


def quiet_seconds(log: ReplayLog) -> float:
    """The quiet window, in trace seconds: the floor, plus the longest scaled engine timer once some job was evicted
    (a requeue backoff may be running), in wall seconds, times k. A job never admitted waits on no timer: Kueue
    retries it on every change of its cohort, Volcano every schedule period."""
    evicted = any(j.requeues or any(not e.reason.startswith(REFUSED) for e in j.evictions) for j in log.jobs)
    longest = max((wall for _, _, wall in log.scaled), default=0.0) if evicted else 0.0
    return (QUIET_FLOOR_WALL + longest) * log.time_scale


def _times(job: JobLog) -> list[float]:
    out = [t for t in (job.created, job.finished) if t is not None]
    out += job.admitted + job.requeues + [e.at for e in job.evictions]
    for span in job.spans.values():
        out += [t for t in (span.bound, span.running, span.ended) if t is not None]
    return out


def last_change(log: ReplayLog) -> float:
    """When the replay last observed anything (trace seconds; 0 before anything)."""
    return max((t for job in log.jobs for t in _times(job)), default=0.0)


def settled(job: JobLog) -> bool:
    return job.finished is not None or job.refused


def reason(log: ReplayLog, now: float, all_submitted: bool, horizon: float, until_settled: bool) -> str | None:
    """Why the replay should stop now (one of ``STOPS``), or None to go on. ``horizon`` is the cap when
    ``until_settled`` (the default horizon), else the ``--horizon`` asked for."""
    if all_submitted and all(settled(j) for j in log.jobs):
        return FINISHED
    if now >= horizon:
        return CAP if until_settled else HORIZON
    if until_settled and all_submitted and now - last_change(log) >= quiet_seconds(log):
        live = any(s.bound is not None and s.ended is None for j in log.jobs for s in j.spans.values())
        if not live:
            return STUCK
    return None


def still_waiting(log: ReplayLog) -> list[JobLog]:
    """Jobs submitted before the horizon, not refused, that had not finished by it."""
    return [j for j in log.jobs if j.submitted < log.horizon and not settled(j)]


def warning(log: ReplayLog) -> str | None:
    """A warning when the cap (or the ``--horizon`` asked for) ended the replay with jobs not finished."""
    left = still_waiting(log)
    if log.stopped not in (CAP, HORIZON) or not left:
        return None
    where = "its cap" if log.stopped == CAP else "the --horizon asked for"
    return (
        f"{log.model}: the replay stopped at {where}, {log.horizon:.0f} trace s, with {len(left)} job(s) not finished: "
        "waits marked ≥ are lower bounds; replay with a longer --horizon to see them end"
    )
