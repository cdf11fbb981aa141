"""Benchmark the Pulumi components: the gpufleet program vs a bare program, same mocks.

Usage: .venv/bin/python bench/pulumi_bench.py [TEAMS] [N]   (default 1000 teams, best of 3)

Both programs run on Pulumi's mock runtime with the recording monitor of the
tests (``tests/components/mocking.py``), a fresh runtime per run, preview off:

- gpufleet: ``GpuFleet(fleet)``, i.e. ``render_all`` + the Kueue, Volcano and
  FleetQuota components (parents, ``depends_on`` edges, ``protect``);
- floor: a bare program that calls ``render_all`` and registers the same two
  charts and the same custom resources / PriorityClasses directly: no components,
  no parents, no dependencies.

The fleet is bench/synthetic.py's 1,000-team fleet (validated with ``parse_model``). Times are CPU seconds of this
process (``time.process_time``, which includes the mock monitor's executor
threads): on a machine shared with other jobs, wall time varies by 2x between
identical runs while CPU time stays within a few percent. Wall seconds are printed
too. The two programs alternate, best of N each, in the same run. The last line is
one JSON object with ``name``, ``seconds`` (gpufleet, best CPU s), ``ratio``
(gpufleet / floor); goal: ratio <= 1.25.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import pulumi_kubernetes as k8s  # noqa: E402

from bench import synthetic  # noqa: E402
from gpufleet.model import parse_model  # noqa: E402
from gpufleet.pulumi.fleet import GpuFleet, GpuFleetArgs  # noqa: E402
from gpufleet.pulumi.kueue import KUEUE_CHART  # noqa: E402
from gpufleet.pulumi.manifest import ManifestCustomResource  # noqa: E402
from gpufleet.pulumi.quota import CORE_KINDS  # noqa: E402
from gpufleet.pulumi.volcano import VOLCANO_CHART, VOLCANO_REPO  # noqa: E402
from gpufleet.render import render_all  # noqa: E402
from tests.components.mocking import install_mocks, run_program  # noqa: E402


def gpufleet_program(fleet) -> None:
    GpuFleet(fleet.name, GpuFleetArgs(fleet))


def bare_program(fleet) -> None:
    rendered = render_all(fleet)
    kueue = fleet.engines.kueue
    k8s.helm.v4.Chart(
        "kueue", chart=KUEUE_CHART, version=kueue.chart_version, namespace=kueue.namespace, values=rendered.kueue_values
    )
    if rendered.volcano_values is not None:
        volcano = fleet.engines.volcano
        k8s.helm.v4.Chart(
            "volcano",
            chart=VOLCANO_CHART,
            version=volcano.chart_version,
            namespace=volcano.namespace,
            repository_opts=k8s.helm.v4.RepositoryOptsArgs(repo=VOLCANO_REPO),
            values=rendered.volcano_values,
        )
    for obj in rendered.objects:
        m = obj.manifest
        build = CORE_KINDS.get((m["apiVersion"], m["kind"]))
        if build is not None:
            build(obj.key, m, None)
        else:
            ManifestCustomResource(obj.key, m)


def run_once(program, fleet) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, resources registered) of one run on a fresh mock runtime."""
    monitor = install_mocks("bench")
    cpu, wall = time.process_time(), time.perf_counter()
    registered = run_program(monitor, lambda: program(fleet))
    return time.process_time() - cpu, time.perf_counter() - wall, len(registered)


def main() -> None:
    parser = argparse.ArgumentParser(
        description="The Pulumi program under mocks vs a bare program registering the same resources."
    )
    parser.add_argument("teams", nargs="?", type=int, default=1000, help="teams in the synthetic fleet (default 1000)")
    parser.add_argument("runs", nargs="?", type=int, default=3, help="runs of each program, best taken (default 3)")
    args = parser.parse_args()
    teams, n = args.teams, args.runs
    fleet = parse_model(synthetic.synthetic_fleet(teams), f"synthetic {teams}-team fleet")
    start = time.perf_counter()
    objects = len(render_all(fleet).objects)
    render_s = time.perf_counter() - start
    run_once(gpufleet_program, fleet)  # warm-up: imports, first-call caches
    runs: dict[str, list[tuple[float, float, int]]] = {"gpufleet": [], "floor": []}
    for _ in range(n):  # alternate, so drift on a shared machine hits both alike
        runs["gpufleet"].append(run_once(gpufleet_program, fleet))
        runs["floor"].append(run_once(bare_program, fleet))
    best = {name: min(r[0] for r in rs) for name, rs in runs.items()}
    count = {name: rs[0][2] for name, rs in runs.items()}
    ratio = best["gpufleet"] / best["floor"]
    print(f"fleet: {len(fleet.teams)} teams, {objects} rendered objects; render_all alone {render_s:.3f} s wall")
    for name, label in (("gpufleet", "gpufleet program"), ("floor", "bare program (floor)")):
        cpus = ", ".join(f"{r[0]:.2f}" for r in runs[name])
        walls = ", ".join(f"{r[1]:.2f}" for r in runs[name])
        print(f"{label}: best {best[name]:.3f} CPU s of {n} (CPU {cpus}; wall {walls}), {count[name]} resources")
    print(f"ratio {ratio:.3f} (goal <= 1.25)")
    name = f"pulumi_program_{teams}_teams"
    print(
        json.dumps(
            {
                "name": name,
                "seconds": round(best["gpufleet"], 4),
                "floor_seconds": round(best["floor"], 4),
                "ratio": round(ratio, 4),
                "clock": "process_cpu",
                "teams": len(fleet.teams),
                "resources": count["gpufleet"],
                "floor_resources": count["floor"],
                "runs": n,
            }
        )
    )


if __name__ == "__main__":
    main()
