"""Benchmark: ``gpufleet diff`` of the 1,000-team synthetic fleet against a variant with 10% of teams changed.

The variant (``changed_variant``) gives every tenth team (``i % 10 == 1``) one more GPU
on each of its pools (what the synthetic pools' spare nodes allow), so 100 ClusterQueues
update and every Volcano parent queue above a touched team is renewed (its children move). Measured in the same run: ``diff_fleets(base, new)``
(both renderings, the steps in Pulumi order, every verdict) and the floor, ``render_all`` of both
models one after the other (twice the render time; a diff cannot do less), the faster
of two measurements: with the cyclic GC on (as ``render`` runs) and off (as the diff
runs), so the diff's GC switch earns it nothing in the ratio. Goal: ratio diff / (2 x render) <= 1.5. ``--crds DIR`` adds the CRD schema,
CEL and transition-rule checks of every step (reported separately). Best of N runs;
the last line is one JSON object.

    .venv/bin/python bench/diff_bench.py [--teams 1000] [--repeat 15] [--crds ../shared/crds]
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from synthetic import synthetic_fleet  # noqa: E402

from gpufleet.crdschema import CrdSet  # noqa: E402
from gpufleet.diff import diff_fleets  # noqa: E402
from gpufleet.model import parse_model  # noqa: E402
from gpufleet.render import render_all  # noqa: E402


def changed_variant(data: dict) -> dict:
    """10% of the teams get one more GPU on each of their pools."""
    out = copy.deepcopy(data)
    for i, team in enumerate(out["teams"]):
        if i % 10 == 1:
            for quota in team["quota"].values():
                quota["nominal"] += 1
    return out


def _interleaved(base, new, repeat: int) -> tuple[float, float]:
    """Best CPU seconds of the floor and of the diff, measured in turns so machine load hits both alike."""
    floor = diff = float("inf")
    for _ in range(repeat):
        floor = min(floor, _best(lambda: (render_all(base), render_all(new)), 1))
        gc.disable()  # diff_fleets runs without the cyclic GC; the floor also gets that advantage
        try:
            floor = min(floor, _best(lambda: (render_all(base), render_all(new)), 1))
        finally:
            gc.enable()
        diff = min(diff, _best(lambda: diff_fleets(base, new), 1))
    return floor, diff


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--crds", type=Path, default=None)
    args = parser.parse_args()

    data = synthetic_fleet(args.teams)
    base = parse_model(data, "synthetic.fleet.yaml")
    new = parse_model(changed_variant(data), "synthetic-changed.fleet.yaml")
    result = diff_fleets(base, new)
    # the floor renders both models, one after the other, as the diff does (render's per-fleet
    # index keeps only the last fleet, so rendering one model twice would be cheaper than this)
    floor_s, diff_s = _interleaved(base, new, args.repeat)
    render_s = floor_s / 2
    ratio = diff_s / floor_s
    figures = {
        "name": "diff",
        "teams": args.teams,
        "steps": len(result.steps),
        "rejected": result.rejected,
        "blocked": result.blocked,
        "quota_rows": len(result.quota),
        "clock": "process_cpu",
        "seconds": round(diff_s, 4),
        "render_seconds": round(render_s, 4),
        "floor_seconds": round(floor_s, 4),
        "ratio": round(ratio, 3),
        "goal_ratio": 1.5,
    }
    print(
        f"synthetic fleet: {args.teams} teams; variant: 10% of teams changed -> {len(result.steps)} steps, "
        f"{len(result.quota)} quota rows, {result.rejected} rejected, {result.blocked} blocked"
    )
    print(f"  render (one model, mean):     {render_s * 1000:8.1f} ms CPU")
    print(f"  floor (render both models):   {floor_s * 1000:8.1f} ms CPU (the faster of GC on / GC off)")
    print(f"  diff (no CRDs):               {diff_s * 1000:8.1f} ms CPU  (ratio {ratio:.2f}, goal <= 1.5)")
    if args.crds is not None:
        crds = CrdSet.load(args.crds)
        diff_fleets(base, new, crds)  # compile the CRD validators once, as a long-lived process would
        crd_s = _best(lambda: diff_fleets(base, new, crds), args.repeat)
        figures.update(crd_seconds=round(crd_s, 4), crd_ratio=round(crd_s / floor_s, 3))
        print(f"  diff (with --crds):           {crd_s * 1000:8.1f} ms CPU  (ratio {crd_s / floor_s:.2f})")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
