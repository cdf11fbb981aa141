"""Benchmark the sandbox under faults: every engine SIGKILLed and restarted ``--rounds`` times while gangs run.

One sandbox of the dev stack (real etcd, API server, controller manager, scheduler, Kueue,
Volcano and the gang-admission controller; KWOK nodes). First the floor: the gangs
submitted on the very schedule the fault run uses (the same seed: submissions, gaps and
pauses), nothing killed, and how long until all finished. Then the same number of gangs
again (new names) while ``gpufleet.sandbox.chaos`` kills each component ``--rounds`` times
in that seeded order, one at a time, with an invariant watcher reading the API server
every second (tests/e2e/test_faults_e2e.py is the bounded run in CI).

Prints one JSON line: the floor's and the fault run's seconds and their ratio, every
fault (component, moment, seconds down, seconds to recover), recovery per component
(median and most), the invariant violations (goal: none), jobs finished or carrying a
reason (goal: all), and the seconds the watcher could not read the API server.

    .venv/bin/python bench/faults_bench.py [--rounds 3] [--seed 30]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpufleet.sandbox import chaos  # noqa: E402
from tests.e2e.sandbox_env import job, running  # noqa: E402
from tests.e2e.test_faults_e2e import BUDGET, COMPONENTS, FREE, QUEUE, gangs  # noqa: E402


def recovery(faults: list[chaos.Fault]) -> dict[str, dict[str, float]]:
    by: dict[str, list[float]] = {}
    for fault in faults:
        by.setdefault(fault.component, []).append(fault.recovered)
    return {name: {"median_s": round(statistics.median(v), 2), "max_s": max(v), "n": len(v)} for name, v in by.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="faults per component")
    parser.add_argument("--seed", type=int, default=30)
    args = parser.parse_args()
    components = COMPONENTS * args.rounds
    count = 3 + len(components)
    with tempfile.TemporaryDirectory() as tmp, running(ROOT / "stacks" / "dev.fleet.yaml", Path(tmp)) as sb:
        sb.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": FREE}})
        floor = chaos.run(sb.state, sb.kube, gangs(count, "f"), components, args.seed, BUDGET, inject=False)
        probes = (job("probe", "alpha", 1, labels={QUEUE: "alpha"}, suspend=True), job("probe", FREE, 1, gpus=0))
        faulted = chaos.run(sb.state, sb.kube, gangs(count, "x"), components, args.seed, BUDGET, probes=probes)
    result = {
        "name": "faults",
        "seed": args.seed,
        "rounds": args.rounds,
        "faults_injected": len(faulted.faults),
        "jobs": count,
        "floor_s": floor.seconds,
        "faults_s": faulted.seconds,
        "ratio": round(faulted.seconds / floor.seconds, 2),
        "violations": [v.__dict__ for v in faulted.violations],
        "floor_violations": [v.__dict__ for v in floor.violations],
        "finished": faulted.finished,
        "with_reason": faulted.with_reason,
        "unobserved_s": faulted.unobserved_seconds,
        "recovery": recovery(faulted.faults),
        "controller_checks": [f.checks for f in faulted.faults if f.checks],
        "faults": [f.__dict__ for f in faulted.faults],
        "load_average": os.getloadavg()[0],
    }
    result["meets_goals"] = not result["violations"] and faulted.finished + faulted.with_reason == count
    print(json.dumps(result))


if __name__ == "__main__":
    main()
