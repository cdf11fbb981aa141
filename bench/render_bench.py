"""Benchmark: validate + render a fleet at two sizes, against its libyaml floor, with the collector on and paused.

The fleet is ``bench/synthetic.py``'s model (a 3-level cohort tree) with ``--pools`` pools
(default 50, split 5:3 Kueue:Volcano) at ``--sizes`` teams (default 1,000 and 10,000).
The floor is what any YAML-in, YAML-out tool pays: load the model YAML with libyaml and
dump every rendered object with libyaml (``gpufleet.yamlin.yamlio``).

1. In process, sizes and modes in turn, best of ``--repeat``: ``yamlio.load`` +
   ``parse_model`` (every cross-field check) + ``render_all``, and the floor, each with the
   cyclic collector on (``on``) and paused around the work (``paused``,
   ``gpufleet.util.gcpause.paused``). The setup's data (model texts, rendered objects) is frozen
   (``gc.freeze``) first, so only what the work builds is collected.
2. Whole processes (``--no-process`` skips them), in turn: ``gpufleet render MODEL --out DIR``
   as shipped (``cli``: the collector paused around load, render and write), the same command
   in a wrapper with the collector on throughout (``on``), with ``gc.freeze()`` after the
   imports (``freeze``) and with ``gc.disable()`` from the start (``disable``); and the floor
   processes (start Python, load the model, dump each document to its own file): ``floor``
   dumps every YAML document the command writes (the rendered objects, the ConfigMaps, the
   monitoring objects and the plain rule file), ``floor-objects`` the rendered objects alone
   (the floor before 1 Dec 2026 12:00 UTC: 25 MB of the 114 MB written at 10,000 teams).
   Wall seconds and peak RSS from ``os.wait4``.

Prints each figure with the load average, then one JSON object: per size and mode the best
seconds, spread, ratio to the floor; the growth from the smallest to the largest size (work
and floor, and the work's growth over the floor's); goals (growth <= 11x for 10x the teams, and
at the largest size <= 2x the floor) and which are met.

    .venv/bin/python bench/render_bench.py [--sizes 1000 10000] [--pools 50] [--repeat 2]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import pickle
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[1]))

import yaml  # noqa: E402
from synthetic import synthetic_fleet  # noqa: E402

from gpufleet.model import parse_model  # noqa: E402
from gpufleet.render import files as render_files  # noqa: E402
from gpufleet.render import render_all  # noqa: E402
from gpufleet.render.alerts import render_rule_file  # noqa: E402
from gpufleet.render.kube_state_metrics import helm_values  # noqa: E402
from gpufleet.render.monitoring import render_ksm_service_monitor, render_monitoring  # noqa: E402
from gpufleet.util import gcpause  # noqa: E402
from gpufleet.yamlin import yamlio  # noqa: E402

GOAL_GROWTH, GOAL_FLOOR_RATIO = 11.0, 2.0
PROCESS_MODES = ("cli", "on", "freeze", "disable")


def written_documents(fleet: Any, rendered: Any) -> list[Any]:
    """Every YAML document ``gpufleet render --out`` writes: the rendered objects, the engine and context
    ConfigMaps, the monitoring objects, the plain rule file, the kube-state-metrics values and ServiceMonitor."""
    context = render_files.context_config_map(fleet, rendered.context)
    docs = [
        *render_files.engine_config_maps(fleet),
        *(o.manifest for o in rendered.objects),
        *([context] if context else []),
    ]
    if fleet.observability.enabled:
        docs += [
            render_rule_file(fleet),
            *render_monitoring(fleet),
            helm_values(fleet),
            render_ksm_service_monitor(fleet),
        ]
    return docs


def _timed(fn: Callable[[], Any], paused: bool) -> float:
    with gcpause.paused() if paused else contextlib.nullcontext():
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start


def in_process(texts: dict[int, str], manifests: dict[int, list[dict[str, Any]]], repeat: int) -> dict[str, Any]:
    """Best seconds (and spread) of work and floor per size and collector mode, all in turn."""
    runs: dict[tuple[int, str, str], list[float]] = {}
    for _ in range(repeat):
        for size, text in texts.items():
            for mode in ("on", "paused"):
                work = lambda: render_all(parse_model(yamlio.load(text), "synthetic.fleet.yaml"))  # noqa: E731
                floor = lambda: (yamlio.load(text), yamlio.dump_all(manifests[size]))  # noqa: E731
                for what, fn in (("floor", floor), ("work", work)):
                    gc.collect()
                    seconds = _timed(fn, mode == "paused")
                    runs.setdefault((size, mode, what), []).append(seconds)
                    print(
                        f"  in process, {size} teams, collector {mode}, {what}: {seconds:.3f} s, "
                        f"load {os.getloadavg()[0]:.2f}",
                        flush=True,
                    )
    return {f"{size}/{mode}/{what}": _spread(found) for (size, mode, what), found in runs.items()}


def _spread(values: list[float]) -> dict[str, Any]:
    return {
        "best_s": round(min(values), 3),
        "median_s": round(statistics.median(values), 3),
        "spread_s": [round(min(values), 3), round(max(values), 3)],
    }


def child(mode: str, model: str, out: str) -> int:
    """A ``gpufleet render`` process with the collector ``on``, frozen after imports, or disabled."""
    if mode == "disable":
        gc.disable()
    argv = ["render", model, "--out", out]
    from gpufleet.cli.commands import register  # the imports (as gpufleet.cli.app.main makes them), then the mode

    command = register(argv)
    import gpufleet.cli.fleet_cmds  # noqa: F401  (the render command's module)

    if mode in ("on", "freeze"):
        gcpause.paused = contextlib.nullcontext  # type: ignore[assignment]  # the CLI's own pause off
    if mode == "freeze":
        gc.freeze()
    sys.argv = ["gpufleet", *argv]
    try:
        command()
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def floor_process(model: str, objects: str, out: str) -> int:
    """The floor as a process: load the model with libyaml, dump each document (a pickled list) to its own file."""
    loader, dumper = getattr(yaml, "CSafeLoader", yaml.SafeLoader), getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    yaml.load(Path(model).read_text(), Loader=loader)
    with open(objects, "rb") as handle:
        manifests = pickle.load(handle)
    root = Path(out)
    root.mkdir(parents=True)
    for i, manifest in enumerate(manifests):
        (root / f"{i:06d}.yaml").write_text(yaml.dump(manifest, Dumper=dumper, sort_keys=False))
    return 0


def _wait(cmd: list[str]) -> dict[str, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {code}: {err.decode()[-2000:]}")
    return {"wall": time.perf_counter() - start, "rss_mib": usage.ru_maxrss / 1024, "load": os.getloadavg()[0]}


def processes(
    texts: dict[int, str],
    manifests: dict[int, list[dict[str, Any]]],
    documents: dict[int, list[Any]],
    repeat: int,
    root: Path,
) -> dict[str, Any]:
    """Whole processes per size: the CLI as shipped, the three collector modes, and the two floors, in turn.

    ``floor``: load the model and dump every document the command writes (what it must at least
    do); ``floor-objects``: the same with the rendered objects alone (the floor of earlier runs,
    without the monitoring files and the rule file: a fifth of the bytes the command writes).
    """
    files = {}
    for size, text in texts.items():
        model, objects, written = (
            root / f"{size}.fleet.yaml",
            root / f"{size}.objects.pickle",
            root / f"{size}.docs.pickle",
        )
        model.write_text(text)
        objects.write_bytes(pickle.dumps(manifests[size]))
        written.write_bytes(pickle.dumps(documents[size]))
        files[size] = (str(model), str(objects), str(written))
    runs: dict[tuple[int, str], list[dict[str, float]]] = {}
    n = 0
    for _ in range(repeat):
        for size, (model, objects, written) in files.items():
            for mode in ("floor", "floor-objects", *PROCESS_MODES):
                n += 1
                out = str(root / f"out-{n}")
                if mode == "floor":
                    cmd = [sys.executable, str(HERE), "--floor-process", model, written, out]
                elif mode == "floor-objects":
                    cmd = [sys.executable, str(HERE), "--floor-process", model, objects, out]
                elif mode == "cli":
                    cmd = [sys.executable, "-m", "gpufleet", "render", model, "--out", out]
                else:
                    cmd = [sys.executable, str(HERE), "--child", mode, model, out]
                got = _wait(cmd)
                shutil.rmtree(out, ignore_errors=True)
                runs.setdefault((size, mode), []).append(got)
                print(
                    f"  process, {size} teams, {mode}: {got['wall']:.2f} s, peak RSS {got['rss_mib']:.0f} MiB, "
                    f"load {got['load']:.2f}",
                    flush=True,
                )
    return {
        f"{size}/{mode}": {
            **_spread([r["wall"] for r in found]),
            "peak_rss_mib": round(max(r["rss_mib"] for r in found), 1),
            "load": [round(min(r["load"] for r in found), 2), round(max(r["load"] for r in found), 2)],
        }
        for (size, mode), found in runs.items()
    }


def growth(figures: dict[str, Any], small: int, large: int, key: str, floor_key: str) -> dict[str, Any]:
    work = figures[f"{large}/{key}"]["best_s"] / figures[f"{small}/{key}"]["best_s"]
    floor = figures[f"{large}/{floor_key}"]["best_s"] / figures[f"{small}/{floor_key}"]["best_s"]
    scale = large / small
    return {
        "growth": round(work, 2),
        "floor_growth": round(floor, 2),
        "over_floor_growth": round(work / floor, 2),
        "ratio_to_floor_at_largest": round(
            figures[f"{large}/{key}"]["best_s"] / figures[f"{large}/{floor_key}"]["best_s"], 2
        ),
        "met": work <= GOAL_GROWTH * scale / 10
        and figures[f"{large}/{key}"]["best_s"] / figures[f"{large}/{floor_key}"]["best_s"] <= GOAL_FLOOR_RATIO,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--pools", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--no-process", action="store_true")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "MODEL", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--floor-process", nargs=3, metavar=("MODEL", "OBJECTS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(*args.child)
    if args.floor_process:
        return floor_process(*args.floor_process)
    started, load_start = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), os.getloadavg()
    sizes = sorted(args.sizes)
    texts = {size: yamlio.dump(synthetic_fleet(size, args.pools)) for size in sizes}
    models = {size: parse_model(yamlio.load(texts[size]), "synthetic.fleet.yaml") for size in sizes}
    renderings = {size: render_all(models[size]) for size in sizes}
    manifests = {size: [o.manifest for o in renderings[size].objects] for size in sizes}
    documents = {size: written_documents(models[size], renderings[size]) for size in sizes}
    del models, renderings
    print(
        f"started {started}, load average {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f} on "
        f"{os.cpu_count()} CPUs; {args.pools} pools; objects per size: "
        + ", ".join(f"{s} teams {len(m)}" for s, m in manifests.items()),
        flush=True,
    )
    gc.collect()
    gc.freeze()  # the setup's data is not the work's: never walked by the collector below
    small, large = sizes[0], sizes[-1]
    inproc = in_process(texts, manifests, args.repeat)
    result: dict[str, Any] = {
        "name": "render_scale",
        "started": started,
        "pools": args.pools,
        "cpus": os.cpu_count(),
        "objects": {str(s): len(m) for s, m in manifests.items()},
        "in_process": inproc,
        "in_process_growth": {
            mode: growth(inproc, small, large, f"{mode}/work", f"{mode}/floor") for mode in ("on", "paused")
        },
    }
    if not args.no_process:
        root = Path(tempfile.mkdtemp(prefix="gpufleet-render-bench-"))
        try:
            procs = processes(texts, manifests, documents, args.repeat, root)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        result["process"] = procs
        result["process_growth"] = {mode: growth(procs, small, large, mode, "floor") for mode in PROCESS_MODES}
        result["process_growth_over_objects_floor"] = {"cli": growth(procs, small, large, "cli", "floor-objects")}
    for where in ("in_process_growth", "process_growth", "process_growth_over_objects_floor"):
        for mode, g in result.get(where, {}).items():
            print(
                f"{where} {mode}: {small} -> {large} teams {g['growth']}x (floor {g['floor_growth']}x, "
                f"{g['over_floor_growth']}x the floor's growth; at {large} teams {g['ratio_to_floor_at_largest']}x the floor); "
                f"goal <= {GOAL_GROWTH}x and <= {GOAL_FLOOR_RATIO}x the floor: {'met' if g['met'] else 'not met'}"
            )
    result["load_average_start"] = [round(x, 2) for x in load_start]
    result["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
