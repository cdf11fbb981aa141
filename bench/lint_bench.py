#!/usr/bin/env python3
"""Benchmark of ``gpufleet lint``: objects per second, against the floor of parsing the same YAML.

Builds an in-memory corpus of at least 10,000 objects by repeating every upstream example
manifest in ../shared/examples/upstream (nothing is copied into the repository), then, in the
same run and on the same texts:

- floor: parse every text with the parser the linter uses (``gpufleet.lint.fastyaml.PARSER``:
  ``yaml_rs.loads``, or PyYAML's C loader ``yaml.load_all`` without yaml-rs), nothing else;
- lint: ``gpufleet.lint.lint_sources`` (parse, fall back to PyYAML where needed, run every
  rule, place findings at their lines).

The two alternate ``--repeat`` times (best run of each kept), both with the cyclic garbage
collector paused as the linter pauses it, so machine load hits both alike. A PyYAML parse is
timed too, for reference only. Prints the figures, then on its last line one JSON object: name,
objects, objects_per_second, floor_objects_per_second, ratio (lint time / floor time), parser,
load_average, us_per_object (floor, lint, and the stages load / engine / place timed apart),
goals (>= 2,000 objects/s, ratio <= 2). ``--profile`` adds a cProfile of one lint run;
``--pyyaml`` measures the PyYAML-only path (as if yaml-rs were not installed).
Exits 0 with a note when ../shared is absent.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import pstats
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import yaml  # noqa: E402

from gpufleet.lint import fastyaml, lint_sources  # noqa: E402
from gpufleet.lint.loader import load  # noqa: E402
from gpufleet.lint.runner import place  # noqa: E402
from gpufleet.rules import engine  # noqa: E402
from gpufleet.rules.api import CheckContext  # noqa: E402
from gpufleet.lint.sources import Source, collect  # noqa: E402

UPSTREAM = Path(os.environ.get("GPUFLEET_SHARED", REPO.parent / "shared")) / "examples" / "upstream"
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
GOAL_OPS, GOAL_RATIO = 2000, 2.0


def corpus(minimum: int) -> tuple[list[Source], int]:
    """The upstream files repeated until the corpus holds at least ``minimum`` objects."""
    base = [s for s in collect([str(UPSTREAM)]) if s.text is not None]
    per_round = sum(1 for s in base for d in yaml.load_all(s.text or "", Loader=_Loader) if isinstance(d, dict))
    rounds = -(-minimum // per_round)
    return [Source(f"{s.name}#{i}", s.text) for i in range(rounds) for s in base], per_round * rounds


def parse_pyyaml(sources: list[Source]) -> int:
    return sum(1 for s in sources for d in yaml.load_all(s.text or "", Loader=_Loader) if d is not None)


def parse_yaml_rs(sources: list[Source]) -> int:
    loads = fastyaml.yaml_rs.loads
    count = 0
    for s in sources:
        value = loads(s.text or "", parse_datetime=False)
        count += len(value) if isinstance(value, list) else value is not None
    return count


def parse_floor(sources: list[Source]) -> int:
    """The floor: the parser the linter uses (yaml-rs, or PyYAML when yaml-rs is absent or --pyyaml)."""
    return parse_yaml_rs(sources) if fastyaml.yaml_rs is not None else parse_pyyaml(sources)


def paths_taken(sources: list[Source]) -> dict[str, int]:
    """How many texts yaml-rs reads, and how many documents PyYAML reads instead (and why)."""
    fast = sum(1 for s in sources if fastyaml.documents(s.text or "") is not None)
    chunks = [c for s in sources for _, c, _ in fastyaml.split(s.text or "") if c.strip()]
    if fastyaml.yaml_rs is None:
        return {"texts": len(sources), "texts_via_yaml_rs": 0, "documents_via_pyyaml_values": len(chunks)}
    return {"texts": len(sources), "texts_via_yaml_rs": fast,
            "documents_via_pyyaml_values": sum(1 for c in chunks if fastyaml.risky(c))}


def timed(fn, *args) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds of this process, result)."""
    was = gc.isenabled()
    gc.disable()
    try:
        start, cpu = time.perf_counter(), time.process_time()
        value = fn(*args)
        return time.perf_counter() - start, time.process_time() - cpu, value
    finally:
        if was:
            gc.enable()


def interleaved(repeat: int, sources: list[Source]) -> dict[str, object]:
    """Best floor and lint times (wall and CPU), alternating so machine load hits both alike."""
    best = {"floor": float("inf"), "floor_cpu": float("inf"), "lint": float("inf"), "lint_cpu": float("inf"),
            "pyyaml": float("inf")}
    parsed, report = 0, None
    for _ in range(repeat):
        wall, cpu, parsed = timed(parse_floor, sources)
        best["floor"], best["floor_cpu"] = min(best["floor"], wall), min(best["floor_cpu"], cpu)
        best["pyyaml"] = min(best["pyyaml"], timed(parse_pyyaml, sources)[0])
        report = None  # drop the previous run's report before timing the next one
        wall, cpu, report = timed(lint_sources, sources)
        best["lint"], best["lint_cpu"] = min(best["lint"], wall), min(best["lint_cpu"], cpu)
    return {**best, "parsed": parsed, "report": report}


def breakdown(repeat: int, sources: list[Source]) -> dict[str, float]:
    """Best seconds of each stage of a lint run, timed apart: where the time goes."""
    best = {"load": float("inf"), "engine": float("inf"), "place": float("inf")}
    for _ in range(repeat):
        wall, _, results = timed(lambda: [load(s) for s in sources])
        best["load"] = min(best["load"], wall)
        items = [item for result in results for item in result.objects]  # type: ignore[attr-defined]
        ctx = CheckContext(objects=tuple(item.obj for item in items))
        wall, _, found = timed(lambda: [engine.check_object(item.obj, ctx) for item in items])
        best["engine"] = min(best["engine"], wall)
        wall, _, _ = timed(lambda: [place(f, item) for item, fs in zip(items, found) for f in fs])  # type: ignore[arg-type]
        best["place"] = min(best["place"], wall)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--pyyaml", action="store_true", help="lint without yaml-rs (the PyYAML path), floor PyYAML")
    args = parser.parse_args()
    if args.pyyaml:
        fastyaml.yaml_rs, fastyaml.PARSER = None, "PyYAML"
    if not UPSTREAM.is_dir():
        print(f"{UPSTREAM} is absent: the benchmark needs ../shared/examples/upstream; nothing measured")
        print(json.dumps({"name": "lint", "skipped": True, "reason": "../shared absent"}))
        return 0
    sources, objects = corpus(args.objects)
    got = interleaved(args.repeat, sources)
    report, floor_s, lint_s = got["report"], float(got["floor"]), float(got["lint"])  # type: ignore[arg-type]
    assert report.objects == objects, (report.objects, objects)  # type: ignore[union-attr]
    ops, floor_ops, ratio = objects / lint_s, objects / floor_s, lint_s / floor_s
    pyyaml_s, load = float(got["pyyaml"]), os.getloadavg()  # type: ignore[arg-type]
    taken = paths_taken(sources)
    cpu_ops = objects / float(got["lint_cpu"])  # type: ignore[arg-type]
    floor_cpu_ops = objects / float(got["floor_cpu"])  # type: ignore[arg-type]
    print(f"corpus: {len(sources)} texts, {objects} objects ({got['parsed']} documents parsed by the floor)")
    print(f"paths: {taken}")
    print(f"floor ({fastyaml.PARSER} parse only): {floor_s:.3f} s  {floor_ops:,.0f} objects/s  "
          f"({floor_cpu_ops:,.0f} per CPU second)")
    print(f"reference, PyYAML C loader parse only: {pyyaml_s:.3f} s  {objects / pyyaml_s:,.0f} objects/s "
          f"(lint / PyYAML parse = {lint_s / pyyaml_s:.2f}; not the goal's floor)")
    print(f"lint (parse + all rules + lines): {lint_s:.3f} s  {ops:,.0f} objects/s  ({cpu_ops:,.0f} per CPU second; "
          f"{len(report.findings)} findings)")  # type: ignore[union-attr]
    print(f"per object: floor {floor_s / objects * 1e6:.0f} us, lint {lint_s / objects * 1e6:.0f} us, "
          f"lint beyond the floor {(lint_s - floor_s) / objects * 1e6:.0f} us; a 2x ratio would allow "
          f"{floor_s / objects * 1e6:.0f} us beyond it, 2,000 objects/s allows {1e6 / GOAL_OPS:.0f} us in all")
    print(f"ratio lint/floor: {ratio:.2f} (goal <= {GOAL_RATIO}); objects/s goal >= {GOAL_OPS}; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")
    stages = breakdown(args.repeat, sources)
    print("where the time goes (each stage timed apart, best of --repeat; us per object): "
          + ", ".join(f"{name} {seconds / objects * 1e6:.0f}" for name, seconds in stages.items())
          + f" (the floor's parse inside load: {floor_s / objects * 1e6:.0f})")
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(lint_sources, sources)
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(25)
        print(out.getvalue())
    print(json.dumps({"name": "lint" if not args.pyyaml else "lint-pyyaml", "objects": objects, "objects_per_second": round(ops),
                      "objects_per_cpu_second": round(cpu_ops),
                      "floor_objects_per_second": round(floor_ops), "ratio": round(ratio, 2),
                      "parser": fastyaml.PARSER, "pyyaml_objects_per_second": round(objects / pyyaml_s),
                      "load_average": [round(x, 2) for x in load],
                      "us_per_object": {"floor": round(floor_s / objects * 1e6), "lint": round(lint_s / objects * 1e6),
                                        **{k: round(v / objects * 1e6) for k, v in stages.items()}},
                      "documents_via_pyyaml": taken["documents_via_pyyaml_values"],
                      "goal_objects_per_second": GOAL_OPS, "goal_ratio": GOAL_RATIO,
                      "meets_goals": ops >= GOAL_OPS and ratio <= GOAL_RATIO}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
