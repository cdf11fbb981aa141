"""Measure ``gpufleet whatif``'s replay at scale: trace speed, pods per second, memory, growth with jobs and nodes.

Builds a fleet model of ``--nodes`` fake 8-GPU nodes in one Kueue pool shared by
``--teams`` teams in one cohort (each nominal = an equal share, borrowing limit = its
nominal), synthesises ``--jobs`` jobs over ``--hours`` trace hours (``gpufleet whatif
trace synth``, ``--seed``), and replays it once on a fresh sandbox at ``--time-scale``
(:func:`gpufleet.sandbox.replay.replay`) until the trace's last hour has passed (jobs still
running then are counted as such). The floor is that horizon divided by the time scale:
the wall time of a replay with no lag. The replay's own lag: how long after its submit time
each job's create call returned (p95 and max, wall seconds). Printed: wall seconds of the sandbox start and of the replay, the ratio of the
replay to its floor, trace seconds per wall second, pods created and bound per second,
the sandbox's peak resident memory (every process it started, sampled each second) and
the report's fleet numbers, the sandbox's own start times (p95, wall seconds: pods from bound to Running,
gangs from admission to all pods Running; ``gpufleet.whatif.metrics.fidelity``) and the 1-minute load average
before and after. With ``--growth``, the same again at 2x jobs and at 2x nodes,
and the growth ratios. Last line: JSON. Needs the engines built.

    .venv/bin/python bench/whatif_bench.py [--nodes 1000 --teams 10 --jobs 2000 --hours 24 --time-scale 120]
        [--scoring MostAllocated] [--growth]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.procmem import rss_mb  # noqa: E402
from gpufleet.model import load_model  # noqa: E402
from gpufleet.sandbox.replay import ReplayOptions, replay  # noqa: E402
from gpufleet.whatif import metrics, timescale  # noqa: E402
from gpufleet.whatif.synth import synth  # noqa: E402
from gpufleet.whatif.trace import dump_trace, parse_trace  # noqa: E402


def model(nodes: int, teams: int, scoring: str = "LeastAllocated") -> dict:
    share = nodes * 8 // teams
    return {
        "apiVersion": "gpufleet.dev/v1alpha1",
        "kind": "Fleet",
        "name": "bench",
        "pools": [
            {
                "name": "h100",
                "system": "kueue",
                "nodeCount": nodes,
                "allocatable": {"nvidia.com/gpu": 8, "cpu": 96, "memory": "1024Gi"},
                "nodeLabels": {"gpufleet.dev/pool": "h100"},
            }
        ],
        "cohorts": [{"name": "all"}],
        "teams": [
            {
                "name": f"team{i}",
                "namespaces": [f"team{i}"],
                "cohort": "all",
                "quota": {"h100": {"nominal": share, "borrowingLimit": share}},
            }
            for i in range(teams)
        ],
        "engines": {"volcano": {"enabled": False}},
        "kubernetes": {"scoringStrategy": scoring},  # how the kube-scheduler scores nodes (docs/model.md)
        # a 30-minute pods-ready timeout keeps k = 120 within the sandbox's floor (15 s wall, docs/whatif.md)
        "admission": {"waitForPodsReady": {"timeout": "30m"}},
    }


class Memory:
    """Peak summed resident memory of the sandbox's processes, sampled each second."""

    def __init__(self) -> None:
        self.peak, self.stop = 0.0, threading.Event()

    def watch(self, state) -> None:
        def loop():
            while not self.stop.is_set():
                self.peak = max(self.peak, sum(rss_mb(p.pid) for p in state.processes))
                time.sleep(1)

        threading.Thread(target=loop, daemon=True).start()


def one(
    nodes: int, teams: int, jobs: int, hours: float, k: float, seed: int, tmp: Path, scoring: str = "LeastAllocated"
) -> dict:
    path = tmp / f"bench-{nodes}n-{jobs}j.fleet.yaml"
    path.write_text(yaml.safe_dump(model(nodes, teams, scoring), sort_keys=False))
    fleet = load_model(path)
    trace = parse_trace(dump_trace(synth(fleet, jobs, hours, seed)), fleet)
    unsafe = timescale.check(trace, [fleet], k)
    if unsafe:
        raise SystemExit(unsafe)
    horizon = hours * 3600.0  # the measure: the trace's hours replayed; jobs still running then are counted
    load_before = os.getloadavg()[0]
    memory, began = Memory(), time.monotonic()
    marks: dict[str, float] = {}

    def started(state):
        marks["up"] = time.monotonic()
        memory.watch(state)

    log = replay(
        fleet,
        str(path),
        trace,
        tmp / f"sb-{nodes}-{jobs}",
        ReplayOptions(time_scale=k, horizon=horizon),
        started=started,
    )
    done = time.monotonic()
    memory.stop.set()
    replay_wall = done - marks["up"]
    pods = sum(len(j.spans) for j in log.jobs)
    bound = sum(s.bound is not None for j in log.jobs for s in j.spans.values())
    fleet_m = metrics.fleet_metrics(log)
    lags = sorted((j.created - j.submitted) / k for j in log.jobs if j.created is not None)
    floor = log.horizon / k
    seen = metrics.fidelity(log)
    return {
        "nodes": nodes,
        "teams": teams,
        "jobs": jobs,
        "traceHours": hours,
        "timeScale": k,
        "seed": seed,
        "scoringStrategy": scoring,
        "startSeconds": round(marks["up"] - began, 1),
        "replaySeconds": round(replay_wall, 1),
        "floorSeconds": round(floor, 1),
        "ratioToFloor": round(replay_wall / floor, 3),
        "traceSecondsPerWallSecond": round(log.horizon / replay_wall, 1),
        "submitLagP95WallSeconds": round(lags[int(0.95 * (len(lags) - 1))], 3) if lags else None,
        "submitLagMaxWallSeconds": round(lags[-1], 3) if lags else None,
        "podsCreatedPerSecond": round(pods / replay_wall, 2),
        "podsBoundPerSecond": round(bound / replay_wall, 2),
        "peakSandboxMiB": round(memory.peak),
        "finished": fleet_m.finished,
        "neverAdmitted": fleet_m.never_admitted,
        "gpuHours": round(fleet_m.gpu_hours, 1),
        "waitP95Seconds": fleet_m.wait_p95_seconds,
        "podsReadyEvictions": fleet_m.pods_ready_evictions,
        "preemptions": fleet_m.preemptions,
        "requeues": fleet_m.requeues,
        "podStartP95WallSeconds": seen["podStartP95WallSeconds"],
        "gangStartP95WallSeconds": seen["gangStartP95WallSeconds"],
        "loadAverage": [round(load_before, 1), round(os.getloadavg()[0], 1)],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--teams", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2000)
    ap.add_argument("--hours", type=float, default=24.0)
    ap.add_argument("--time-scale", type=float, default=120.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scoring", choices=["LeastAllocated", "MostAllocated"], default="LeastAllocated")
    ap.add_argument("--growth", action="store_true", help="also 2x jobs and 2x nodes")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gpufleet-whatif-bench-"))
    runs = {"base": one(a.nodes, a.teams, a.jobs, a.hours, a.time_scale, a.seed, tmp, a.scoring)}
    print(json.dumps(runs["base"]), flush=True)
    if a.growth:
        runs["2xJobs"] = one(a.nodes, a.teams, 2 * a.jobs, a.hours, a.time_scale, a.seed, tmp, a.scoring)
        print(json.dumps(runs["2xJobs"]), flush=True)
        runs["2xNodes"] = one(2 * a.nodes, a.teams, a.jobs, a.hours, a.time_scale, a.seed, tmp, a.scoring)
        print(json.dumps(runs["2xNodes"]), flush=True)
        base = runs["base"]["replaySeconds"]
        runs["growth"] = {k: round(runs[k]["replaySeconds"] / base, 2) for k in ("2xJobs", "2xNodes")}
    print(json.dumps(runs))


if __name__ == "__main__":
    main()
