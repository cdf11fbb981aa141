"""Measure ``gpufleet try``'s throughput on one reused sandbox: cases per minute, against a bare floor.

Starts ``gpufleet.sandbox.up`` for the dev stack without the controller (as the
differential tier will run it), then, in ``--rounds`` rounds, runs every case below
through :func:`gpufleet.sandbox.trial.try_manifests` (submit, watch, classify, delete
and wait for the pods to go), and, in the same round, the floor: a bare create of the
same objects, then delete and wait for them and their pods to go (what any trial must
pay). The cases that run whole end as soon as every rank runs; the others after
``--settle`` seconds without change, so the ratio depends on the mix and the settle time
(both printed). Prints a line per round and a last line of JSON. Needs the engines built.

    .venv/bin/python bench/try_bench.py [--rounds 3] [--settle 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpufleet.kubetypes.vocab import QUEUE_LABEL as QUEUE  # noqa: E402
from gpufleet.model import load_model  # noqa: E402
from gpufleet.sandbox.state import down  # noqa: E402
from gpufleet.sandbox.trial import TrialOptions, clean, try_manifests  # noqa: E402
from gpufleet.sandbox.trial_watch import Ref, Watch  # noqa: E402
from gpufleet.sandbox.up import Options, up  # noqa: E402
from tests.e2e.sandbox_env import Sandbox, job, launcher_job  # noqa: E402

DEV = ROOT / "stacks" / "dev.fleet.yaml"


def cases(r: int) -> dict[str, list[dict]]:
    return {
        "volcano launcher, minAvailable 2": [launcher_job(f"l2-{r}", 2)],
        "volcano launcher, minAvailable 3": [launcher_job(f"l3-{r}", 3)],
        "kueue job within quota": [job(f"fits-{r}", "alpha", pods=2, labels={QUEUE: "alpha"})],
        "kueue job over quota": [job(f"huge-{r}", "alpha", pods=4, labels={QUEUE: "alpha"})],
        "kueue job, missing LocalQueue": [job(f"lost-{r}", "alpha", pods=2, labels={QUEUE: "nope"})],
    }


def _floor(sb: Sandbox, docs: list[dict]) -> float:
    start = time.monotonic()
    refs = []
    for doc in docs:
        meta = sb.create(doc)["metadata"]
        refs.append(Ref(doc["apiVersion"], doc["kind"], meta["name"], meta["namespace"], meta["uid"]))
    clean(Watch(sb.kube, refs))
    return time.monotonic() - start


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--settle", type=float, default=10.0)
    args = p.parse_args()
    load0 = os.getloadavg()[0]
    fleet = load_model(DEV)
    state = up(
        fleet, str(DEV), Path(tempfile.mkdtemp(prefix="gpufleet-try-bench-")) / "sandbox", Options(controller=False)
    )
    options = TrialOptions(timeout=120, settle=args.settle)
    rounds = []
    try:
        sb = Sandbox(state, fleet)
        for r in range(args.rounds):
            tried, floor, outcomes = 0.0, 0.0, {}
            for name, docs in cases(r).items():
                t0 = time.monotonic()
                outcomes[name] = try_manifests(sb.kube, docs, options).outcome
                tried += time.monotonic() - t0
                floor += _floor(
                    sb, [{**d, "metadata": {**d["metadata"], "name": d["metadata"]["name"] + "-f"}} for d in docs]
                )
            n = len(outcomes)
            rounds.append(
                {
                    "cases": n,
                    "try_s": round(tried, 2),
                    "floor_s": round(floor, 2),
                    "cases_per_minute": round(60 * n / tried, 2),
                    "ratio": round(tried / floor, 2),
                    "outcomes": outcomes,
                }
            )
            print(
                f"round {r + 1}: {n} cases in {tried:.1f} s ({60 * n / tried:.1f}/min), floor {floor:.1f} s, "
                f"ratio {tried / floor:.2f}"
            )
        print(
            json.dumps(
                {
                    "name": "try",
                    "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                    "settle_s": args.settle,
                    "load_start": round(load0, 2),
                    "load_end": round(os.getloadavg()[0], 2),
                    "cases_per_minute_median": statistics.median(x["cases_per_minute"] for x in rounds),
                    "ratio_median": statistics.median(x["ratio"] for x in rounds),
                    "rounds": rounds,
                }
            )
        )
    finally:
        down(state)
    return 0


if __name__ == "__main__":
    sys.exit(main())
