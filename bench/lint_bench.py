#!/usr/bin/env python3
"""Benchmark of ``gpufleet lint`` at monorepo scale: whole processes on a realistic corpus, at two sizes.

The corpus is built at bench time from the upstream example manifests in
../shared/examples/upstream (read here, never copied into the repository): copy ``i`` of
every file renames each object (``<name>-c<i>``, and every value in the same file that
names one of its objects, so pod-group labels and queue references stay consistent), puts
namespaced objects in one of ``--namespaces`` namespaces, and points the TrainJobs of odd
copies at runtimes that are not in the run. Names are unique, so no look-up stops at an
early copy. Written to a temporary directory (outside the repository), one file per
upstream file and copy, at ``--sizes`` objects (default 10,000 and 100,000).

In the same run, in turn (floor, gpufleet, checkov, floor, gpufleet, ...), each a whole
process measured by ``os.wait4`` (wall seconds and the largest process's peak RSS) and by
sampling /proc four times a second for the peak PSS and RSS summed over the process and
its workers (the memory goal counts every process: the larger of the two peaks):

- floor: read and parse every file with the parser the linter uses (yaml-rs, else
  PyYAML's C loader), nothing else (``bench/lint_bench.py --floor DIR``);
- ``gpufleet lint DIR --format json --jobs N`` (output discarded; ``--jobs``, default 0:
  one process per CPU, as the command's default), and with ``--one-process`` also
  ``--jobs 1``, the linter in one process;
- checkov (``--checkov``, default ``/tmp/checkov-venv/bin/checkov`` when present; a separate
  venv, never a dependency) ``-d DIR --framework kubernetes -o json --quiet``, at the sizes
  in ``--checkov-sizes`` (default the smallest).

gpufleet and the floor run as an installed package runs, with a bytecode cache (``--bytecode``,
the default: ``PYTHONPYCACHEPREFIX`` in a temporary directory, written by one untimed run of
each before the first size is timed): an editable install where PYTHONDONTWRITEBYTECODE is
set, as on the machines this bench runs on, would compile every module at every start, while
pip compiles an installed package at install time, as it compiled checkov in its venv.
``--no-bytecode`` measures the editable install as it starts here.

Prints one line per process run with the load average, then one JSON object: per size the
best, median and spread of each, objects/s, peak RSS, the ratio to the floor; the growth
ratio from the smallest to the largest size (lint and floor); checkov's wall time over
gpufleet's; the goals (>= 30x checkov at 10,000, 100,000 objects in <= 30 s and <= 1 GiB,
growth <= 11x) and which are met. ``--profile`` adds a cProfile of one in-process lint
run at the smallest size. Exits 0 with a note when ../shared is absent.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import yaml  # noqa: E402

from gpufleet.lint import fastyaml, lint_sources  # noqa: E402
from gpufleet.lint.namespaces import is_namespaced  # noqa: E402
from gpufleet.lint.sources import collect  # noqa: E402

UPSTREAM = Path(os.environ.get("GPUFLEET_SHARED", REPO.parent / "shared")) / "examples" / "upstream"
CHECKOV = Path("/tmp/checkov-venv/bin/checkov")
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
GOAL_CHECKOV, GOAL_SECONDS, GOAL_MIB, GOAL_GROWTH = 30.0, 30.0, 1024.0, 11.0
MARK = "ZZCOPYZZ"  # stands for the copy number in the file templates (in no upstream manifest)


def _rename(value: Any, names: dict[str, str]) -> Any:
    """``value`` with every string that names an object of its file renamed (keys left as they are)."""
    if isinstance(value, dict):
        return {k: _rename(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename(v, names) for v in value]
    return names.get(value, value) if isinstance(value, str) else value


def _template(docs: list[dict[str, Any]]) -> tuple[str, str]:
    """One upstream file as YAML with the copy number marked: (present-runtime text, absent-runtime text)."""
    names = {
        str(d["metadata"]["name"]): f"{d['metadata']['name']}-c{MARK}"
        for d in docs
        if isinstance(d.get("metadata"), dict) and d["metadata"].get("name")
    }
    out = []
    for absent in (False, True):
        renamed = []
        for doc in docs:
            doc = _rename(doc, names)
            meta = doc.setdefault("metadata", {}) if isinstance(doc.get("metadata", {}), dict) else {}
            if meta.get("name") and not str(meta["name"]).endswith(MARK):
                meta["name"] = f"{meta['name']}-c{MARK}"
            if is_namespaced(doc) and isinstance(meta, dict):
                meta["namespace"] = f"team-{MARK}"
            ref = (doc.get("spec") or {}).get("runtimeRef") if isinstance(doc.get("spec"), dict) else None
            if doc.get("kind") == "TrainJob" and isinstance(ref, dict) and ref.get("name"):
                base = str(ref["name"]).replace(f"-c{MARK}", "")
                ref["name"] = f"absent-{base}-c{MARK}" if absent else f"{base}-c{MARK}"
            renamed.append(doc)
        out.append(yaml.dump_all(renamed, Dumper=_Dumper, sort_keys=False))
    return out[0], out[1]


def _upstream() -> list[tuple[str, tuple[str, str], int]]:
    """(relative name, templates, objects) of every upstream file with Kubernetes-like documents."""
    found = []
    for source in collect([str(UPSTREAM)]):
        try:
            docs = [
                d for d in yaml.load_all(source.text or "", Loader=_Loader) if isinstance(d, dict) and d.get("kind")
            ]
        except yaml.YAMLError:
            continue
        if docs:
            found.append((str(Path(source.name).relative_to(UPSTREAM)), _template(docs), len(docs)))
    return found


def write_corpus(root: Path, minimum: int, namespaces: int) -> int:
    """Copies of every upstream file under ``root`` until at least ``minimum`` objects; returns the object count."""
    files = _upstream()
    per_round = sum(n for _, _, n in files)
    rounds = -(-minimum // per_round)
    width = len(str(rounds))
    for i in range(rounds):
        copy = str(i).zfill(width)
        for name, (present, absent), _ in files:
            text = absent if i % 2 else present
            text = text.replace(f"team-{MARK}", f"team-{i % namespaces}").replace(MARK, copy)
            path = root / f"c{copy}" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    return per_round * rounds


def floor(directory: str) -> int:
    """The floor process: read and parse every file as the linter's parser does; prints the document count."""
    sources = collect([directory])
    count = 0
    if fastyaml.yaml_rs is not None:
        for s in sources:
            value = fastyaml.yaml_rs.loads(s.text or "", parse_datetime=False)
            count += len(value) if isinstance(value, list) else value is not None
    else:
        count = sum(1 for s in sources for d in yaml.load_all(s.text or "", Loader=_Loader) if d is not None)
    print(count)
    return 0


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(x) for x in handle.read().split()]
    except OSError:
        return []


def _pss_kib(pid: int) -> tuple[int, int]:
    """(PSS, RSS) of ``pid`` and its descendants in KiB (0 where /proc cannot tell)."""
    pss = rss = 0
    for one in [pid, *_children(pid)]:
        try:
            with open(f"/proc/{one}/smaps_rollup") as handle:
                for line in handle:
                    if line.startswith("Pss:"):
                        pss += int(line.split()[1])
                    elif line.startswith("Rss:"):
                        rss += int(line.split()[1])
        except (OSError, ValueError):
            continue
    return pss, rss


def measure(cmd: list[str], env: dict[str, str] | None = None) -> dict[str, float]:
    """Wall seconds, peak memory and exit status of one child process, with the load average at its end.

    ``rss_mib`` is the kernel's peak RSS of the largest process (``os.wait4``); ``tree_pss_mib``
    and ``tree_rss_mib`` the largest sums over the process and its workers, sampled from
    /proc every quarter second (PSS counts a page shared by forked processes once in all).
    """
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    peak_pss = peak_rss = 0
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        pss, rss = _pss_kib(child.pid)
        peak_pss, peak_rss = max(peak_pss, pss), max(peak_rss, rss)
        time.sleep(0.25)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return {
        "wall": wall,
        "rss_mib": usage.ru_maxrss / 1024,
        "tree_pss_mib": peak_pss / 1024,
        "tree_rss_mib": max(peak_rss / 1024, usage.ru_maxrss / 1024),
        "status": child.returncode,
        "load": os.getloadavg()[0],
    }


def commands(directory: str, checkov: Path | None, jobs: int, serial: bool) -> dict[str, list[str]]:
    py = sys.executable
    lint = [py, "-m", "gpufleet", "lint", directory, "--format", "json"]
    cmds = {
        "floor": [py, str(Path(__file__).resolve()), "--floor", directory],
        "gpufleet": [*lint, "--jobs", str(jobs)],
    }
    if serial:
        cmds["gpufleet_one_process"] = [*lint, "--jobs", "1"]
    if checkov is not None:
        cmds["checkov"] = [str(checkov), "-d", directory, "--framework", "kubernetes", "-o", "json", "--quiet"]
    return cmds


def summary(runs: list[dict[str, float]], objects: int) -> dict[str, Any]:
    walls = [r["wall"] for r in runs]
    best = min(walls)
    return {
        "runs": len(runs),
        "best_s": round(best, 3),
        "median_s": round(statistics.median(walls), 3),
        "spread_s": [round(min(walls), 3), round(max(walls), 3)],
        "objects_per_second": round(objects / best),
        "peak_rss_mib": round(max(r["rss_mib"] for r in runs), 1),
        "peak_tree_pss_mib": round(max(r["tree_pss_mib"] for r in runs), 1),
        "peak_tree_rss_mib": round(max(r["tree_rss_mib"] for r in runs), 1),
        "exit": sorted({int(r["status"]) for r in runs}),
        "load": [round(min(r["load"] for r in runs), 2), round(max(r["load"] for r in runs), 2)],
    }


def bytecode_env(prefix: Path) -> dict[str, str]:
    """The environment of an installed package's processes: modules read from a bytecode cache in ``prefix``.

    An editable install compiles every module at every start when PYTHONDONTWRITEBYTECODE is set
    (as on the machines this bench runs on); pip compiles an installed package at install time, as it
    compiled checkov in its venv. The cache is written by one untimed run (:func:`warm`).
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(prefix)
    return env


def warm(cmds: dict[str, list[str]], env: dict[str, str] | None) -> None:
    """One untimed run of each Python command (floor, gpufleet), writing the bytecode cache of ``env``."""
    if env is not None:
        for name in ("floor", "gpufleet"):
            measure(cmds[name], env)


def run_size(
    objects_wanted: int,
    repeat: int,
    namespaces: int,
    checkov: Path | None,
    keep: bool,
    jobs: int,
    serial: bool,
    env: dict[str, str] | None = None,
    warm_up: bool = False,
) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="gpufleet-lint-bench-"))
    try:
        objects = write_corpus(root, objects_wanted, namespaces)
        cmds = commands(str(root), checkov, jobs, serial)
        if warm_up:
            warm(cmds, env)
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in cmds}
        for i in range(repeat):
            for name, cmd in cmds.items():
                if name == "checkov" and i > 0:
                    continue  # checkov takes minutes: once per size, between the gpufleet runs
                got = measure(cmd, None if name == "checkov" else env)  # checkov reads its venv's own bytecode
                runs[name].append(got)
                print(
                    f"  {objects} objects, {name}: {got['wall']:.2f} s, peak RSS {got['rss_mib']:.0f} MiB "
                    f"(all processes: PSS {got['tree_pss_mib']:.0f}, RSS {got['tree_rss_mib']:.0f} MiB), "
                    f"exit {got['status']}, load {got['load']:.2f}",
                    flush=True,
                )
        out = {name: summary(found, objects) for name, found in runs.items()}
        out["objects"], out["files"] = objects, sum(1 for _ in root.rglob("*.yaml"))
        out["ratio_to_floor"] = round(out["gpufleet"]["best_s"] / out["floor"]["best_s"], 2)
        if "checkov" in out:
            out["checkov_over_gpufleet"] = round(out["checkov"]["best_s"] / out["gpufleet"]["best_s"], 1)
        return out
    finally:
        if keep:
            print(f"  corpus kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


def profile_once(objects: int, namespaces: int) -> str:
    root = Path(tempfile.mkdtemp(prefix="gpufleet-lint-bench-"))
    try:
        write_corpus(root, objects, namespaces)
        sources = collect([str(root)])
        profile = cProfile.Profile()
        profile.runcall(lint_sources, sources)
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("cumulative").print_stats(25)
        return text.getvalue()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def goals(sizes: dict[int, dict[str, Any]]) -> Iterator[tuple[str, Any, bool]]:
    small, large = sizes[min(sizes)], sizes[max(sizes)]
    if "checkov_over_gpufleet" in small:
        yield "checkov_over_gpufleet", small["checkov_over_gpufleet"], small["checkov_over_gpufleet"] >= GOAL_CHECKOV
    yield "largest_seconds", large["gpufleet"]["best_s"], large["gpufleet"]["best_s"] <= GOAL_SECONDS
    memory = max(large["gpufleet"]["peak_rss_mib"], large["gpufleet"]["peak_tree_pss_mib"])  # every process counted
    yield "largest_peak_memory_mib", memory, memory <= GOAL_MIB
    if len(sizes) > 1:
        growth = large["gpufleet"]["best_s"] / small["gpufleet"]["best_s"]
        scale = large["objects"] / small["objects"]
        yield "growth", round(growth, 2), growth <= GOAL_GROWTH * scale / 10


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--namespaces", type=int, default=200)
    parser.add_argument("--checkov", type=Path, default=CHECKOV if CHECKOV.exists() else None)
    parser.add_argument(
        "--checkov-sizes", type=int, nargs="*", default=None, help="sizes checkov runs at (default: the smallest)"
    )
    parser.add_argument("--no-checkov", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the corpus directories (printed)")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--jobs", type=int, default=0, help="gpufleet lint --jobs (default 0: one process per CPU)")
    parser.add_argument(
        "--one-process", action="store_true", help="also run gpufleet lint --jobs 1 (the serial linter)"
    )
    parser.add_argument(
        "--bytecode",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run gpufleet and the floor with a bytecode cache, as an installed package runs (default); "
        "--no-bytecode: compile every module at every start where PYTHONDONTWRITEBYTECODE is set",
    )
    parser.add_argument("--floor", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        return floor(args.floor)
    if not UPSTREAM.is_dir():
        print(f"{UPSTREAM} is absent: the benchmark needs ../shared/examples/upstream; nothing measured")
        print(json.dumps({"name": "lint", "skipped": True, "reason": "../shared absent"}))
        return 0
    checkov = None if args.no_checkov else args.checkov
    checkov_sizes = set(args.checkov_sizes if args.checkov_sizes is not None else [min(args.sizes)])
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    load_start = os.getloadavg()
    print(
        f"started {started}, load average {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f} on "
        f"{os.cpu_count()} CPUs; parser {fastyaml.PARSER}; checkov {checkov or 'not installed'}; "
        f"bytecode cache {'on (one untimed run writes it)' if args.bytecode else 'off'}",
        flush=True,
    )
    sizes = {}
    with tempfile.TemporaryDirectory(prefix="gpufleet-lint-bench-pyc-") as cache:
        env = bytecode_env(Path(cache)) if args.bytecode else None
        for size in sorted(args.sizes):
            sizes[size] = run_size(
                size,
                args.repeat,
                args.namespaces,
                checkov if size in checkov_sizes else None,
                args.keep,
                args.jobs,
                args.one_process,
                env,
                warm_up=not sizes,
            )
    met = {name: {"value": value, "met": ok} for name, value, ok in goals(sizes)}
    if len(sizes) > 1:
        small, large = sizes[min(sizes)], sizes[max(sizes)]
        floor_growth = round(large["floor"]["best_s"] / small["floor"]["best_s"], 2)
        print(
            f"growth {small['objects']} -> {large['objects']} objects: gpufleet {met['growth']['value']}x, "
            f"floor {floor_growth}x (goal <= {GOAL_GROWTH}x for 10x the objects)"
        )
    else:
        floor_growth = None
    if args.profile:
        print(profile_once(min(args.sizes), args.namespaces))
    load_end = os.getloadavg()
    print(
        json.dumps(
            {
                "name": "lint_scale",
                "started": started,
                "parser": fastyaml.PARSER,
                "cpus": os.cpu_count(),
                "jobs": args.jobs,
                "bytecode_cache": args.bytecode,
                "load_average_start": [round(x, 2) for x in load_start],
                "load_average_end": [round(x, 2) for x in load_end],
                "sizes": {str(k): v for k, v in sizes.items()},
                "floor_growth": floor_growth,
                "goals": met,
                "meets_goals": all(g["met"] for g in met.values()),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
