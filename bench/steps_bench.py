"""Benchmark ``gpufleet.steps.report_step`` against a bare counter increment (the floor).

Training code calls ``report_step`` once per step, so its cost per call is what
matters. Both loops run in the same process and alternate in ``--rounds`` rounds so
that load from other work on shared cores hits them alike; the best round of each is
kept. The reporter serves on an ephemeral loopback port while it runs, and one scrape
at the end checks that the last step was recorded.

Prints one line per loop, then one JSON object: ``ns_per_call`` of both, ``ratio`` =
report_step / bare increment, and the absolute overhead per step. Goal: well under a
microsecond per step (a training step takes milliseconds to seconds).

    .venv/bin/python bench/steps_bench.py [--calls 1000000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import time
import urllib.request

from gpufleet.steps import Reporter


class Counter:
    def __init__(self) -> None:
        self.value = 0

    def inc(self) -> None:
        self.value += 1


def _time(fn, calls: int) -> float:
    start = time.perf_counter_ns()
    for step in range(calls):
        fn(step)
    return (time.perf_counter_ns() - start) / calls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    counter = Counter()
    reporter = Reporter(port=0, host="127.0.0.1", serve=True).start()
    report = reporter.report_step
    bare = lambda step: counter.inc()  # noqa: E731 -- same call overhead as report_step(step)
    floor, cost = [], []
    for _ in range(args.rounds):
        floor.append(_time(bare, args.calls))
        cost.append(_time(report, args.calls))
    with urllib.request.urlopen(f"http://127.0.0.1:{reporter.port}/metrics", timeout=5) as response:
        text = response.read().decode()
    assert f"gpufleet_training_step {args.calls - 1}\n" in text, text
    reporter.stop()
    best_floor, best_cost = min(floor), min(cost)
    print(f"bare counter increment     {best_floor:8.1f} ns/call")
    print(f"gpufleet.steps.report_step {best_cost:8.1f} ns/call")
    print(
        json.dumps(
            {
                "name": "steps",
                "calls": args.calls,
                "rounds": args.rounds,
                "floor_ns_per_call": round(best_floor, 1),
                "ns_per_call": round(best_cost, 1),
                "ratio": round(best_cost / best_floor, 2),
                "overhead_ns": round(best_cost - best_floor, 1),
                "loadavg": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    main()
