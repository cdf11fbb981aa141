"""Replay a job trace on a fresh sandbox of one model: the engine half of ``gpufleet whatif``.

For a model: start a sandbox of the model as the time scale runs it
(:func:`gpufleet.whatif.timescale.scaled_fleet`; nodes from its pools), start the watches
(:mod:`gpufleet.sandbox.replay_watch`), then create each trace job at its submit time / k
(the manifest of :mod:`gpufleet.whatif.jobs`, each pod carrying KWOK's completion delay:
its run time / k, and its start delay when the line has ``startSeconds``), fail a rank where
the trace says so, and stop when :func:`gpufleet.whatif.stop.reason` says (every job finished, the replay stuck, the
cap or the horizon passed); then stop the sandbox (by PID) and return the :class:`ReplayLog`.
Called by ``gpufleet.cli.whatif_cmds`` and the e2e tier.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from gpufleet.kubetypes.vocab import KWOK_COMPLETE_AFTER, KWOK_READY_AFTER, SANDBOX_POOL_LABEL, WHATIF_JOB_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.sandbox import nodes
from gpufleet.sandbox.kube import Kube, api_message, wait_for
from gpufleet.sandbox.replay_watch import Recorder, start_watches
from gpufleet.sandbox.state import State, down
from gpufleet.sandbox.trial import finish_pod
from gpufleet.sandbox.up import Options, up
from gpufleet.whatif import jobs, metrics, stop, timescale
from gpufleet.whatif.observed import REFUSED, Eviction, JobLog, ReplayLog
from gpufleet.whatif.trace import Trace, TraceJob, named

Progress = Callable[[float, int, int], None]
"""Called about once a second: trace seconds so far, jobs finished, jobs in the trace."""


@dataclass(frozen=True)
class ReplayOptions:
    time_scale: float
    horizon: float
    """Trace seconds after which the replay stops, finished or not (the cap, with ``until_settled``)."""
    until_settled: bool = False
    """The default horizon: also stop once no waiting job can ever start (:mod:`gpufleet.whatif.stop`)."""
    controller: bool = False
    """Run the gang-admission controller too (the replayed jobs are written gang-safe; off by default)."""
    keep: bool = False
    """Leave the sandbox running afterwards (its folder is the replay's ``directory``)."""
    volcano_without: tuple[str, ...] = ()
    """Volcano admission paths the sandbox leaves out (``up``'s ``Options.volcano_without``)."""


def _capacity(fleet: Fleet) -> dict[str, int]:
    return {p.name: int(p.node_count * int(p.allocatable.get(p.gpu_resource, 0))) for p in fleet.pools}


def _nominal(fleet: Fleet) -> dict[tuple[str, str], float]:
    return {(t.name, pool): float(q.nominal) for t in fleet.teams for pool, q in t.quota.items()}


def _node_pools(fleet: Fleet) -> dict[str, str]:
    return {n["metadata"]["name"]: n["metadata"]["labels"][SANDBOX_POOL_LABEL] for n in nodes.nodes(fleet)}


def pod_annotations(job: TraceJob, k: float) -> dict[str, str]:
    """KWOK's delays for each pod of ``job`` at time scale ``k``: its run time, and its start time when it has one."""
    out = {KWOK_COMPLETE_AFTER: f"{job.run_seconds / k:.3f}s"}
    if job.start_seconds is not None:
        out[KWOK_READY_AFTER] = f"{job.start_seconds / k:.3f}s"
    return out


class _Driver:
    def __init__(self, kube: Kube, fleet: Fleet, trace: Trace, options: ReplayOptions, log: ReplayLog) -> None:
        self.kube, self.fleet, self.trace, self.options, self.log = kube, fleet, trace, options, log
        self.k = options.time_scale
        self.t0 = time.monotonic()
        self.failed: set[str] = set()
        self.to_fail = [job for job in trace.jobs if job.fail_at_seconds is not None]

    def now(self) -> float:
        return (time.monotonic() - self.t0) * self.k

    def submit(self, job: TraceJob, entry: JobLog) -> None:
        try:
            self.kube.create(jobs.manifest(job, self.fleet, pod_annotations(job, self.k)))
            entry.created = self.now()
        except Exception as exc:  # noqa: BLE001 - a refusal is an outcome: recorded, never replayed again
            entry.evictions.append(_refused(self.now(), api_message(exc)))

    def fail_ranks(self, entries: dict[tuple[str, str], JobLog]) -> None:
        """Fail one running rank of each job whose trace line says so, once, after its failAtSeconds of running."""
        for job in self.to_fail:
            if job.name in self.failed:
                continue
            began = metrics.start(entries[(job.namespace, named(job))], self.now())
            if began is None or self.now() - began < (job.fail_at_seconds or 0.0):
                continue
            pods = self.kube.list("v1", "Pod", job.namespace, label_selector=f"{WHATIF_JOB_LABEL}={job.name}")
            running = [p for p in pods if (p.get("status") or {}).get("phase") == "Running"]
            if running:
                finish_pod(self.kube, running[0])
                self.failed.add(named(job))

    @property
    def log_jobs(self) -> dict[tuple[str, str], JobLog]:
        return {(j.namespace, j.name): j for j in self.log.jobs}


def _refused(at: float, message: str) -> Eviction:
    return Eviction(at, f"{REFUSED}: {message}")


def _new_log(fleet: Fleet, model: str, trace: Trace, options: ReplayOptions) -> ReplayLog:
    k = options.time_scale
    log = ReplayLog(
        model=model,
        time_scale=k,
        horizon=options.horizon,
        capacity=_capacity(fleet),
        nominal=_nominal(fleet),
        scaled=[(s.name, s.trace_seconds, s.wall_seconds) for s in timescale.scaled_durations(fleet, k)],
    )
    for job in trace.jobs:
        team = jobs.team_of(fleet, job.namespace)
        log.jobs.append(
            JobLog(
                named(job),
                job.namespace,
                team.name,
                job.pods,
                job.gpus_per_pod,
                job.submit_seconds,
                min_pods=job.min_pods,
                start_seconds=job.start_seconds or 0.0,
            )
        )
    return log


def replay(
    fleet: Fleet,
    model: str,
    trace: Trace,
    directory: Path,
    options: ReplayOptions,
    progress: Progress | None = None,
    started: Callable[[State], None] | None = None,
) -> ReplayLog:
    """Replay ``trace`` on a fresh sandbox of ``fleet`` in ``directory``; the sandbox is stopped afterwards.
    ``started`` is called with the sandbox's state once it runs (the benchmark samples its processes' memory)."""
    log = _new_log(fleet, model, trace, options)
    state = up(
        timescale.scaled_fleet(fleet, options.time_scale),
        model,
        directory,
        Options(controller=options.controller, volcano_without=options.volcano_without),
    )
    stopping = threading.Event()
    try:
        if started is not None:
            started(state)
        kube = Kube(Path(state.kubeconfig))
        wait_for("every ClusterQueue Active and Volcano queue Open", lambda: _queues_ready(kube, fleet), timeout=180)
        driver = _Driver(kube, fleet, trace, options, log)
        recorder = Recorder(driver.log_jobs, _node_pools(fleet), driver.now)
        start_watches(Path(state.kubeconfig), recorder, fleet.engines.volcano.enabled, stopping)
        driver.t0 = time.monotonic()
        log.stopped = _run(driver, recorder, progress)
        log.horizon = min(options.horizon, driver.now())
    except BaseException:
        stopping.set()
        down(state, keep=True)  # its logs say why: the caller keeps them (state.keep_logs_only)
        raise
    stopping.set()
    if not options.keep:
        down(state)
    return log


def _queues_ready(kube: Kube, fleet: Fleet) -> bool:
    """Kueue's ClusterQueues are Active and Volcano's queues Open: before that, a job would wait on the start-up."""
    for cq in kube.list("kueue.x-k8s.io/v1beta2", "ClusterQueue"):
        conds = {c["type"]: c["status"] for c in (cq.get("status") or {}).get("conditions") or []}
        if conds.get("Active") != "True":
            return False
    if fleet.engines.volcano.enabled:
        return all(
            (q.get("status") or {}).get("state") == "Open" for q in kube.list("scheduling.volcano.sh/v1beta1", "Queue")
        )
    return True


SUBMITTERS = 4
"""Create calls in flight at once: a slow create (an admission webhook, a loaded API server) must not hold back the
jobs due after it (the benchmark's submission lag showed it)."""


def _run(driver: _Driver, recorder: Recorder, progress: Progress | None) -> str:
    with ThreadPoolExecutor(SUBMITTERS, thread_name_prefix="whatif-submit") as pool:
        return _loop(driver, recorder, progress, pool)


def _loop(driver: _Driver, recorder: Recorder, progress: Progress | None, pool: ThreadPoolExecutor) -> str:
    """Submit each job at its time, fail ranks, report progress; return why the replay stopped."""
    pending = list(driver.trace.jobs)
    entries = driver.log_jobs
    last = -1.0
    while True:
        now = driver.now()
        while pending and pending[0].submit_seconds <= now:
            job = pending.pop(0)
            pool.submit(driver.submit, job, entries[(job.namespace, named(job))])
        with recorder.lock:
            driver.fail_ranks(entries)
            done = sum(stop.settled(e) for e in entries.values())
            submitted = not pending and all(e.created is not None or e.refused for e in entries.values())
            why = stop.reason(driver.log, now, submitted, driver.options.horizon, driver.options.until_settled)
        if progress is not None and now - last >= driver.k:
            progress(now, done, len(entries))
            last = now
        if why is not None:
            return why
        time.sleep(0.1)
