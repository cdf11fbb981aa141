"""Measure what the Go compiler's garbage-collector setting in sandbox/engines/build.sh saves on a cold build.

Issue 33 asks to cut what a cold engine build spends. ``build.sh`` runs the Go toolchain with
``GOGC=400`` and ``GOMEMLIMIT=3GiB`` (collect a quarter as often; collect as usual again past 3 GiB).
The setting is not part of Go's action keys, so it leaves cached builds valid. This builds the named
engines from an empty build cache (the module cache is shared and not timed: run
``bash sandbox/engines/build.sh`` once first), alternately with Go's defaults (``GOGC=100``,
``GOMEMLIMIT=off``: the floor) and with build.sh's setting, and prints for each build the wall time,
the CPU time of the whole tree (``os.wait4``: user + system of every compile and link) and the largest
process's peak RSS; then the tuned/default ratio of the medians per engine, and how it changes with the
engine's size (its default CPU time).

    .venv/bin/python bench/engine_build_gc.py [--engines kwok,etcd] [--rounds 2]

Each build runs ``bash sandbox/engines/build.sh ENGINE`` itself, with ``GPUFLEET_ENGINES_CACHE`` in a
temporary folder that is removed afterwards. Who calls it: a developer, for docs/sandbox.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "sandbox" / "engines" / "build.sh"
DEFAULT = {"GOGC": "100", "GOMEMLIMIT": "off"}
"""Go's own defaults: the floor."""


def _modcache() -> str:
    cache = os.environ.get("GPUFLEET_ENGINES_CACHE") or str(Path.home() / ".cache" / "gpufleet" / "engines")
    return str(Path(cache) / "gomod")


def build_once(engine: str, tuned: bool) -> dict[str, float]:
    """One cold build of ``engine``: wall and CPU seconds, peak RSS (MiB) of the largest process."""
    scratch = Path(tempfile.mkdtemp(prefix="gf-gc-"))
    env = {k: v for k, v in os.environ.items() if k not in ("GOGC", "GOMEMLIMIT")}
    env.update({"GPUFLEET_ENGINES_CACHE": str(scratch), "GOMODCACHE_OVERRIDE": _modcache()})
    if not tuned:
        env.update(DEFAULT)
    try:
        began = time.monotonic()
        proc = subprocess.Popen(["bash", str(BUILD), engine], env=env, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - began
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"bench/engine_build_gc.py: building {engine} failed (see its lines above)")
    return {
        "wall_s": round(wall, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
        "load": round(os.getloadavg()[0], 2),
    }


def _median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def measure(engine: str, rounds: int) -> dict:
    runs: dict[str, list[dict[str, float]]] = {"default": [], "tuned": []}
    for _ in range(rounds):
        for name in ("default", "tuned"):
            runs[name].append(build_once(engine, name == "tuned"))
            print(json.dumps({"engine": engine, "gc": name, **runs[name][-1]}), flush=True)
    ratio = {key: round(_median(runs["tuned"], key) / _median(runs["default"], key), 3) for key in ("wall_s", "cpu_s")}
    return {
        "engine": engine,
        "rounds": rounds,
        "default": runs["default"],
        "tuned": runs["tuned"],
        "tuned_over_default": ratio,
        "spread_cpu_s": {n: [min(r["cpu_s"] for r in v), max(r["cpu_s"] for r in v)] for n, v in runs.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="kwok,etcd", help="engine folders, smallest first (default kwok,etcd)")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    results = [measure(e, args.rounds) for e in args.engines.split(",")]
    by_size = sorted(results, key=lambda r: _median(r["default"], "cpu_s"))
    growth = {
        f"{a['engine']}->{b['engine']}": round(_median(b["default"], "cpu_s") / _median(a["default"], "cpu_s"), 2)
        for a, b in zip(by_size, by_size[1:])
    }
    print(
        json.dumps(
            {
                "name": "engine_build_gc",
                "started": started,
                "cpus": os.cpu_count(),
                "results": results,
                "default_cpu_growth": growth,
            }
        )
    )


if __name__ == "__main__":
    main()
