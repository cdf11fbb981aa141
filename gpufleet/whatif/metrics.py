"""The report's numbers, computed from what a replay observed (:mod:`gpufleet.whatif.observed`).

Pure functions of a :class:`ReplayLog`, all in trace time. Definitions (docs/whatif.md,
"What the numbers mean"):

- a job *starts* when all its pods (an elastic job: ``minPods``) are Running at once for the first time; its *wait*
  is start minus submit; a job that never started by the horizon is *never admitted*, and, unless the API server
  refused it, *still waiting*: its wait so far counts in the wait figures as a lower bound (:mod:`.waits`);
- *GPU-hours* are each pod's GPUs times its Running time; *borrowed* GPU-hours are the
  team's usage on a pool above its nominal quota there, integrated over time;
- a *preemption* is an eviction whose reason is ``Preempted``; the GPU-hours it threw
  away are the job's GPUs times its time since its last start (no checkpoint assumed);
- *podsReadyEvictions* are evictions for ``PodsReadyTimeout``;
- *partial-gang GPU-hours* are GPUs held by bound pods of a job while not all of its pods
  were Running (the essay's hang, in GPU-hours);
- *utilization* is allocated (bound pods' GPUs) and useful (GPUs of jobs with every pod
  Running) over the fleet's GPU capacity, sampled over the replay.
Called by :mod:`gpufleet.whatif.report`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

from gpufleet.util.camel import camel_dict
from gpufleet.whatif.observed import JobLog, ReplayLog
from gpufleet.whatif.waits import Wait, figure, job_wait, nearest_rank

HOUR = 3600.0


def _steps(points: Iterable[tuple[float, int]]) -> list[tuple[float, int]]:
    """Running totals of +/- changes, ordered by time: [(t, level after t)]."""
    level, out = 0, []
    for t, delta in sorted(points):
        level += delta
        out.append((t, level))
    return out


def _end(value: float | None, horizon: float) -> float:
    return horizon if value is None else min(value, horizon)


def running_level(job: JobLog, horizon: float) -> list[tuple[float, int]]:
    """How many of the job's pods were Running, as a step function."""
    points = []
    for span in job.spans.values():
        if span.running is not None and span.running < horizon:
            points += [(span.running, 1), (_end(span.ended, horizon), -1)]
    return _steps(points)


def whole_intervals(job: JobLog, horizon: float) -> list[tuple[float, float]]:
    """The intervals during which every pod of the job was Running (at least ``minPods`` of an elastic job)."""
    out, since = [], None
    for t, level in running_level(job, horizon):
        if level >= job.needed and since is None:
            since = t
        elif level < job.needed and since is not None:
            if t > since:
                out.append((since, t))
            since = None
    if since is not None and horizon > since:
        out.append((since, horizon))
    return out


def start(job: JobLog, horizon: float) -> float | None:
    whole = whole_intervals(job, horizon)
    return whole[0][0] if whole else None


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> float:
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def gpu_seconds(job: JobLog, horizon: float) -> float:
    return sum(
        s.gpus * (_end(s.ended, horizon) - s.running)
        for s in job.spans.values()
        if s.running is not None and s.running < horizon
    )


def partial_gpu_seconds(job: JobLog, horizon: float) -> float:
    """GPU-seconds held by the job's bound pods outside the intervals where the whole gang ran."""
    whole = whole_intervals(job, horizon)
    total = 0.0
    for span in job.spans.values():
        if span.bound is None or span.bound >= horizon:
            continue
        held = (span.bound, _end(span.ended, horizon))
        inside = sum(_overlap(held, w) for w in whole)
        total += span.gpus * max(0.0, held[1] - held[0] - inside)
    return total


def thrown_away_gpu_seconds(job: JobLog, horizon: float) -> float:
    """For each preemption, the job's GPUs times its time since the start it lost."""
    whole = whole_intervals(job, horizon)
    total = 0.0
    for ev in job.evictions:
        if ev.reason != "Preempted":
            continue
        began = max((w[0] for w in whole if w[0] <= ev.at), default=None)
        if began is not None:
            total += job.pods * job.gpus_per_pod * (ev.at - began)
    return total


def borrowed_gpu_seconds(log: ReplayLog, team: str) -> float:
    """The team's GPU usage above its nominal quota, per pool, integrated over time."""
    per_pool: dict[str, list[tuple[float, int]]] = defaultdict(list)
    for job in log.jobs:
        if job.team != team:
            continue
        for s in job.spans.values():
            if s.bound is not None and s.pool is not None and s.bound < log.horizon:
                per_pool[s.pool] += [(s.bound, s.gpus), (_end(s.ended, log.horizon), -s.gpus)]
    total = 0.0
    for pool, points in per_pool.items():
        nominal = log.nominal.get((team, pool), 0.0)
        steps = _steps(points)
        for (t, level), (t_next, _) in zip(steps, steps[1:] + [(log.horizon, 0)]):
            total += max(0.0, level - nominal) * max(0.0, t_next - t)
    return total


def wait(job: JobLog, horizon: float) -> Wait | None:
    """The job's wait (censored when it had not started by the horizon); None when it never queued."""
    return job_wait(job.submitted, start(job, horizon), horizon, job.refused)


@dataclass(frozen=True)
class Metrics:
    """One team's (or the fleet's) headline numbers under one model; keys as in the JSON report."""

    submitted: int
    finished: int
    never_admitted: int
    still_waiting: int
    """Jobs queued but not started by the horizon (not refused): their waits so far are in the wait figures."""
    wait_p50_seconds: float | None
    wait_p95_seconds: float | None
    wait_max_seconds: float | None
    gpu_hours: float
    borrowed_gpu_hours: float
    preemptions: int
    preempted_gpu_hours: float
    pods_ready_evictions: int
    requeues: int
    partial_gang_gpu_hours: float
    wait_p50_censored: bool = False
    """The figure is a lower bound: a job still waiting at the horizon is at or below it (:mod:`.waits`)."""
    wait_p95_censored: bool = False
    wait_max_censored: bool = False

    def as_dict(self) -> dict[str, float | int | None]:
        return camel_dict(self)


def metrics_of(log: ReplayLog, jobs: list[JobLog], borrowed_seconds: float) -> Metrics:
    h = log.horizon
    waits = [w for j in jobs if (w := wait(j, h)) is not None]
    (p50, p50_low), (p95, p95_low), (most, most_low) = (figure(waits, q) for q in (0.5, 0.95, 1.0))
    return Metrics(
        submitted=len(jobs),
        finished=sum(j.finished is not None and j.finished <= h for j in jobs),
        never_admitted=sum(start(j, h) is None for j in jobs),
        still_waiting=sum(w.censored for w in waits),
        wait_p50_seconds=p50,
        wait_p95_seconds=p95,
        wait_max_seconds=most,
        wait_p50_censored=p50_low,
        wait_p95_censored=p95_low,
        wait_max_censored=most_low,
        gpu_hours=sum(gpu_seconds(j, h) for j in jobs) / HOUR,
        borrowed_gpu_hours=borrowed_seconds / HOUR,
        preemptions=sum(e.reason == "Preempted" for j in jobs for e in j.evictions),
        preempted_gpu_hours=sum(thrown_away_gpu_seconds(j, h) for j in jobs) / HOUR,
        pods_ready_evictions=sum(e.reason == "PodsReadyTimeout" for j in jobs for e in j.evictions),
        requeues=sum(len(j.requeues) for j in jobs),
        partial_gang_gpu_hours=sum(partial_gpu_seconds(j, h) for j in jobs) / HOUR,
    )


def teams(log: ReplayLog) -> list[str]:
    return sorted({j.team for j in log.jobs} | {team for team, _ in log.nominal})


def team_metrics(log: ReplayLog, team: str) -> Metrics:
    return metrics_of(log, [j for j in log.jobs if j.team == team], borrowed_gpu_seconds(log, team))


def fleet_metrics(log: ReplayLog) -> Metrics:
    return metrics_of(log, log.jobs, sum(borrowed_gpu_seconds(log, t) for t in teams(log)))


def utilization(log: ReplayLog, samples: int = 200) -> list[tuple[float, float, float, dict[str, float]]]:
    """(trace seconds, allocated fraction, useful fraction, allocated fraction per team) at ``samples`` points."""
    capacity = sum(log.capacity.values()) or 1
    h = log.horizon
    out = []
    wholes = {id(j): whole_intervals(j, h) for j in log.jobs}
    for i in range(samples + 1):
        t = h * i / samples
        per_team: dict[str, float] = defaultdict(float)
        allocated = useful = 0
        for job in log.jobs:
            held = sum(
                s.gpus for s in job.spans.values() if s.bound is not None and s.bound <= t < _end(s.ended, h + 1)
            )
            allocated += held
            per_team[job.team] += held / capacity
            if any(a <= t < b for a, b in wholes[id(job)]):
                useful += sum(
                    s.gpus
                    for s in job.spans.values()
                    if s.running is not None and s.running <= t < _end(s.ended, h + 1)
                )
        out.append((t, allocated / capacity, useful / capacity, dict(per_team)))
    return out


def gang_starts(job: JobLog, horizon: float) -> list[float]:
    """For each admission of the job after which all its pods ran before it ended (an eviction, the horizon): trace
    seconds from the admission to that start. The sandbox's own start time of a gang; admissions cut short are left
    out, since their time is the timeout's, whatever the cause."""
    wholes = [a for a, _ in whole_intervals(job, horizon)]
    ends = sorted(e.at for e in job.evictions)
    out = []
    for admitted in job.admitted:
        began = min((t for t in wholes if t >= admitted), default=None)
        cut = min((t for t in ends if t >= admitted), default=horizon)
        if began is not None and began <= cut:
            out.append(began - admitted)
    return out


def fidelity(log: ReplayLog) -> dict[str, float | None]:
    """How far the sandbox fell behind the trace, in wall seconds (p95): create calls after their submit time, pods
    from bound to Running, and gangs from admission to all pods Running (the Job controller's creates, the scheduler's
    binds, KWOK's start and the informers' lag: the whole chain a pods-ready timeout waits for; gangs that started
    only), each less the start time the trace gives its pods (``startSeconds``: the job's, not the machine's). Near
    the scaled pods-ready timeout, evictions are the machine's, not the model's."""
    k = log.time_scale
    lags = [(j.created - j.submitted) / k for j in log.jobs if j.created is not None]
    starts = [
        max(0.0, s.running - s.bound - j.start_seconds) / k
        for j in log.jobs
        for s in j.spans.values()
        if s.bound is not None and s.running is not None
    ]
    gangs = [max(0.0, t - j.start_seconds) / k for j in log.jobs for t in gang_starts(j, log.horizon)]
    return {
        "submitLagP95WallSeconds": _p95(lags),
        "podStartP95WallSeconds": _p95(starts),
        "gangStartP95WallSeconds": _p95(gangs),
    }


def _p95(values: list[float]) -> float | None:
    found = nearest_rank(values, 0.95)
    return None if found is None else round(found, 3)


def behind(log: ReplayLog) -> str | None:
    """A warning when pods took more than half the scaled pods-ready timeout to start, or gangs from admission to all
    pods Running (p95), else None."""
    seen = fidelity(log)
    timeout = next((wall for name, _, wall in log.scaled if name.endswith("waitForPodsReady.timeout")), None)
    if timeout is None:
        return None
    for key, what in (
        ("gangStartP95WallSeconds", "gangs took {:g} wall s from admission to all pods Running"),
        ("podStartP95WallSeconds", "pods took {:g} wall s from bound to Running"),
    ):
        value = seen[key]
        if value is not None and value > timeout / 2:
            return (
                f"{log.model}: {what.format(value)} (p95), more than half the scaled pods-ready timeout "
                f"({timeout:g} s): its evictions may be the machine's, not the model's; replay with a lower "
                "--time-scale"
            )
    return None
