"""Measure ``gpufleet sandbox up``: wall time to ready, and where it goes (``logs/up.log``), per round.

Starts and stops the sandbox of ``--model`` (default the dev stack, with the controller, as
``gpufleet sandbox up`` does) ``--rounds`` times, each in a fresh folder, and prints per round
the wall time of ``up``, of ``down``, and the steps ``up`` logged (seconds since it began);
a last line of JSON. ``--before REPO`` alternates rounds with another checkout's
``gpufleet`` (e.g. /work/main), each round in its own Python process, so that the machine's
load hits both alike; a checkout that writes no ``up.log`` gives totals only. Needs the
engines built (``bash sandbox/engines/build.sh``); every process is stopped by its PID.

    .venv/bin/python bench/sandbox_up_bench.py [--model stacks/dev.fleet.yaml] [--rounds 2] [--before /work/main]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROUND = """
import json, sys, time
from pathlib import Path
from gpufleet.model import load_model
from gpufleet.sandbox.state import down
from gpufleet.sandbox.up import Options, up
try:
    from gpufleet.sandbox.uplog import UP_LOG
except ImportError:  # a checkout from before the step log's module (--before): its own constant, if any
    import gpufleet.sandbox.up as _up
    UP_LOG = getattr(_up, "UP_LOG", None)
model, folder, controller = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "1"
began = time.monotonic()
state = up(load_model(model), str(model), folder, Options(controller=controller))
took = time.monotonic() - began
began = time.monotonic()
down(state, keep=True)
log = folder / "logs" / (UP_LOG or "-")
print(json.dumps({"up": round(took, 1), "down": round(time.monotonic() - began, 1),
                  "steps": log.read_text().splitlines() if UP_LOG and log.is_file() else []}))
"""


def one(repo: Path, model: Path, controller: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="upbench") as tmp:
        env = {**os.environ, "PYTHONPATH": str(repo)}
        done = subprocess.run(
            [sys.executable, "-c", ROUND, str(model), str(Path(tmp) / "sandbox"), "1" if controller else "0"],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode != 0:
            raise SystemExit(f"round failed ({repo}):\n{done.stderr[-3000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=ROOT / "stacks" / "dev.fleet.yaml")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--before", type=Path, help="another checkout to alternate with (its gpufleet package)")
    ap.add_argument("--no-controller", action="store_true")
    args = ap.parse_args()
    sides = [("before", args.before), ("after", ROOT)] if args.before else [("after", ROOT)]
    out: dict[str, list[dict]] = {name: [] for name, _ in sides}
    for r in range(args.rounds):
        for name, repo in sides:
            load = os.getloadavg()[0]
            res = {**one(repo, args.model.resolve(), not args.no_controller), "load": round(load, 1)}
            out[name].append(res)
            print(f"round {r + 1} {name}: up {res['up']} s, down {res['down']} s (load average {load:.1f})", flush=True)
            for line in res["steps"]:
                print(f"    {line}")
    summary = {
        name: {"up_median": statistics.median(x["up"] for x in runs), "rounds": runs} for name, runs in out.items()
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
