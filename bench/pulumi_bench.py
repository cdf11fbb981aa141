"""Benchmark the Pulumi components: the gpufleet program vs a bare program, same mocks.

Usage: .venv/bin/python bench/pulumi_bench.py [TEAMS] [N]   (default 1000 teams, best of 5)

Both programs run on Pulumi's mock runtime with the recording monitor of the
tests (``tests/components/mocking.py``), a fresh runtime per run, preview off:

- gpufleet: ``GpuFleet(fleet)``, i.e. ``render_all`` + the Kueue, Volcano and
  FleetQuota components (parents, ``depends_on`` edges, ``protect``);
- floor: a bare program that calls ``render_all`` and registers the same two
  charts and the same custom resources / PriorityClasses directly: no components,
  no parents, no dependencies.

The fleet is bench/synthetic.py's 1,000-team fleet. Prints figures, best of N for
each program in the same run, and on its last line one JSON object with ``name``,
``seconds`` (gpufleet, best), ``ratio`` (gpufleet / floor); goal: ratio <= 1.25.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import pulumi_kubernetes as k8s  # noqa: E402

from bench import synthetic  # noqa: E402
from components.fleet import GpuFleet, GpuFleetArgs  # noqa: E402
from components.kueue import KUEUE_CHART  # noqa: E402
from components.manifest import ManifestCustomResource  # noqa: E402
from components.quota import CORE_KINDS  # noqa: E402
from components.volcano import VOLCANO_CHART, VOLCANO_REPO  # noqa: E402
from gpufleet.render import render_all  # noqa: E402
from tests.components.mocking import install_mocks, run_program  # noqa: E402


def gpufleet_program(fleet) -> None:
    GpuFleet(fleet.name, GpuFleetArgs(fleet))


def bare_program(fleet) -> None:
    rendered = render_all(fleet)
    kueue = fleet.engines.kueue
    k8s.helm.v4.Chart("kueue", chart=KUEUE_CHART, version=kueue.chart_version, namespace=kueue.namespace,
                      values=rendered.kueue_values)
    if rendered.volcano_values is not None:
        volcano = fleet.engines.volcano
        k8s.helm.v4.Chart("volcano", chart=VOLCANO_CHART, version=volcano.chart_version, namespace=volcano.namespace,
                          repository_opts=k8s.helm.v4.RepositoryOptsArgs(repo=VOLCANO_REPO), values=rendered.volcano_values)
    for obj in rendered.objects:
        m = obj.manifest
        build = CORE_KINDS.get((m["apiVersion"], m["kind"]))
        if build is not None:
            build(obj.key, m, None)
        else:
            ManifestCustomResource(obj.key, m)


def run_once(program, fleet) -> tuple[float, int]:
    monitor = install_mocks("bench")
    start = time.perf_counter()
    registered = run_program(monitor, lambda: program(fleet))
    return time.perf_counter() - start, len(registered)


def main() -> None:
    teams = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    fleet = synthetic.fleet(teams)
    start = time.perf_counter()
    objects = len(render_all(fleet).objects)
    render_s = time.perf_counter() - start
    run_once(gpufleet_program, fleet)  # warm-up: imports, first-call caches
    # Interleave the two programs so drift on a shared machine hits both alike.
    g_times, f_times, g_count, f_count = [], [], 0, 0
    for _ in range(n):
        seconds, g_count = run_once(gpufleet_program, fleet)
        g_times.append(seconds)
        seconds, f_count = run_once(bare_program, fleet)
        f_times.append(seconds)
    g_best, f_best = min(g_times), min(f_times)
    print(f"fleet: {len(fleet.teams)} teams, {objects} rendered objects; render_all alone {render_s:.3f} s")
    print(f"gpufleet program: best {g_best:.3f} s of {n} ({', '.join(f'{t:.3f}' for t in g_times)}), {g_count} resources")
    print(f"bare program (floor): best {f_best:.3f} s of {n} ({', '.join(f'{t:.3f}' for t in f_times)}), {f_count} resources")
    print(f"ratio {g_best / f_best:.3f} (goal <= 1.25)")
    print(json.dumps({"name": "pulumi_program_1000_teams" if teams == 1000 else f"pulumi_program_{teams}_teams",
                      "seconds": round(g_best, 4), "floor_seconds": round(f_best, 4), "ratio": round(g_best / f_best, 4),
                      "teams": len(fleet.teams), "resources": g_count, "floor_resources": f_count, "runs": n}))


if __name__ == "__main__":
    main()
