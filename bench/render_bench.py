"""Benchmark (a): validate + render a 1,000-team fleet, against the YAML floor.

Measures ``parse_model`` (pydantic + every cross-field check) plus ``render_all`` on
the synthetic fleet of ``bench/synthetic.py`` (1,000 teams, 8 pools, a 3-level cohort
tree), and in the same run the floor: loading the model YAML and dumping the rendered
objects as YAML (what any YAML-in, YAML-out tool pays). Best of N repetitions each.
Goals: at most 1 s, and at most 3x the floor. Prints the figures; the last line is one
JSON object (name, seconds, floor_seconds, ratio, ...).

    .venv/bin/python bench/render_bench.py [--teams 1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from synthetic import synthetic_fleet  # noqa: E402

from gpufleet import yamlio  # noqa: E402
from gpufleet.model import parse_model  # noqa: E402
from gpufleet.render import render_all  # noqa: E402


def _best(fn, repeat: int) -> tuple[float, float]:
    """Best wall-clock and best CPU seconds over ``repeat`` runs (CPU time is steadier on a busy machine)."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    text = yamlio.dump(synthetic_fleet(args.teams))
    data = yamlio.load(text)

    def validate_render():
        return render_all(parse_model(yamlio.load(text), "synthetic.fleet.yaml"))

    rendered = validate_render()
    manifests = [o.manifest for o in rendered.objects]

    def floor():
        yamlio.load(text)
        return yamlio.dump_all(manifests)

    validate_s, _ = _best(lambda: parse_model(data, "synthetic.fleet.yaml"), args.repeat)
    render_s, _ = _best(lambda: render_all(parse_model(data, "synthetic.fleet.yaml", validate=False)), args.repeat)
    parse_only_s, _ = _best(lambda: parse_model(data, "synthetic.fleet.yaml", validate=False), args.repeat)
    floor_s, floor_cpu = _best(floor, args.repeat)
    total_s, total_cpu = _best(validate_render, args.repeat)
    ratio = total_s / floor_s

    print(f"synthetic fleet: {args.teams} teams, 8 pools, {len(manifests)} objects, model {len(text) // 1024} KiB")
    print(f"  floor (load model YAML + dump rendered YAML): {floor_s * 1000:8.1f} ms")
    print(f"  load + validate + render:                     {total_s * 1000:8.1f} ms  (ratio {ratio:.2f}, goal <= 3)")
    print(f"  CPU time: floor {floor_cpu * 1000:.1f} ms, load + validate + render {total_cpu * 1000:.1f} ms (ratio {total_cpu / floor_cpu:.2f})")
    print(f"    parse_model without checks:                 {parse_only_s * 1000:8.1f} ms")
    print(f"    parse_model with checks:                    {validate_s * 1000:8.1f} ms")
    print(f"    render_all (+ parse without checks):        {render_s * 1000:8.1f} ms")
    print(json.dumps({"name": "render", "seconds": round(total_s, 4), "floor_seconds": round(floor_s, 4),
                      "ratio": round(ratio, 3), "cpu_seconds": round(total_cpu, 4), "cpu_ratio": round(total_cpu / floor_cpu, 3), "teams": args.teams, "objects": len(manifests),
                      "validate_seconds": round(validate_s, 4), "render_seconds": round(render_s - parse_only_s, 4),
                      "goal_seconds": 1.0, "goal_ratio": 3.0}))


if __name__ == "__main__":
    main()
