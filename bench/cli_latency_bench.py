"""Benchmark: wall time of ``gpufleet lint one.yaml`` (what a pre-commit hook pays per commit) vs ``python -c pass``.

Both run as fresh processes of the same interpreter, in turns (so machine load hits both
alike), with bytecode caching allowed (``PYTHONDONTWRITEBYTECODE`` removed and one
warm-up run first, as an installed package has its ``.pyc`` files). The file is one
small, clean Volcano Job. Also measured, for contrast: ``gpufleet rules`` (the same
rule registry, through typer, which builds a pydantic adapter per parameter). Median of N runs each; goal: lint <= 0.3 s wall. The last line is one JSON
object.

    .venv/bin/python bench/cli_latency_bench.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
JOB = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: train, namespace: research}
spec:
  schedulerName: volcano
  queue: research
  minAvailable: 4
  policies: [{event: PodEvicted, action: RestartJob}, {event: PodFailed, action: RestartJob}]
  tasks:
  - name: worker
    replicas: 4
    template:
      spec:
        restartPolicy: Never
        containers: [{name: w, image: trainer:1, resources: {limits: {nvidia.com/gpu: 8}}}]
"""
GOAL_SECONDS = 0.3


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _wall(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    env = _env()
    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job.yaml"
        job.write_text(JOB)
        commands = {
            "pass": [sys.executable, "-c", "pass"],
            "lint": [sys.executable, "-m", "gpufleet", "lint", str(job)],
            "typer": [sys.executable, "-m", "gpufleet", "rules"],
        }
        for cmd in commands.values():  # warm-up: writes the .pyc files
            _wall(cmd, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, cmd in commands.items():
                times[name].append(_wall(cmd, env))
    med = {name: statistics.median(values) for name, values in times.items()}
    ratio = med["lint"] / med["pass"]
    print(f"python -c pass         median {med['pass'] * 1000:7.1f} ms")
    print(
        f"gpufleet lint one.yaml median {med['lint'] * 1000:7.1f} ms  ({ratio:.1f}x a bare interpreter; goal <= {GOAL_SECONDS * 1000:.0f} ms)"
    )
    print(f"gpufleet rules         median {med['typer'] * 1000:7.1f} ms  (the typer path)")
    print(
        json.dumps(
            {
                "bench": "cli_latency",
                "repeat": args.repeat,
                "pass_ms": round(med["pass"] * 1000, 1),
                "lint_ms": round(med["lint"] * 1000, 1),
                "typer_rules_ms": round(med["typer"] * 1000, 1),
                "ratio": round(ratio, 2),
                "goal_ms": GOAL_SECONDS * 1000,
                "goal_met": med["lint"] <= GOAL_SECONDS,
            }
        )
    )


if __name__ == "__main__":
    main()
