"""Measure how much Go source a cold engine build compiles, and how much of it more than once.

Issue 33 asks where a cold build of the sandbox's engines spends its time and which
libraries are compiled more than once because each engine pins its own Kubernetes library
versions. Go's build cache (shared by every engine: ``$GPUFLEET_ENGINES_CACHE/gobuild``)
compiles a package once per *action*: its import path, version and the actions of everything
it imports. Two engines share a compiled package only when that whole closure is identical.

For every engine folder under ``sandbox/engines`` this lists the packages its binaries need
(``go list -deps`` on the ``tool`` lines of its ``go.mod``, offline against the engines' module
cache: run ``bash sandbox/engines/build.sh`` once first), measures their Go source in bytes
(a proxy for compile work: cgo is off, and generated code such as ``k8s.io/api`` dominates
both) and prints, in one run:

- the floor: every package compiled once, at one version (what one build list for all
  engines would compile, were their sources compatible);
- today: one compile per distinct action, as the shared build cache does now;
- groupings: engines that could share one build list (one ``go.mod`` require set, so one
  version of every module), e.g. the engines on the same Kubernetes minor;
- the modules compiled most often, with their versions.

    .venv/bin/python bench/engine_compile_share.py [--engines kube,kueue,...] [--top 15]

Nothing is built or downloaded (``GOPROXY=off``); ``pulumi-kubernetes`` embeds a file its hook
writes, so its listing runs with ``-e``. Who calls it: a developer, for docs/sandbox.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ROOT / "sandbox" / "engines"
GROUPINGS = {
    "one build list per Kubernetes minor (1.34: volcano+coscheduling; 0.36: kueue+kwok+ksm)": [
        ["volcano", "coscheduling"],
        ["kueue", "kwok", "ksm"],
    ],
    "the same, and the three Pulumi engines on one build list": [
        ["volcano", "coscheduling"],
        ["kueue", "kwok", "ksm"],
        ["pulumi", "pulumi-kubernetes", "pulumi-yaml"],
    ],
    "the same, and kube+etcd with the 0.36 group": [
        ["volcano", "coscheduling"],
        ["kueue", "kwok", "ksm", "kube", "etcd"],
        ["pulumi", "pulumi-kubernetes", "pulumi-yaml"],
    ],
}


def tools(engine: str) -> list[str]:
    """The packages an engine's ``go.mod`` names on ``tool`` lines (what build.sh builds)."""
    text = (ENGINES / engine / "go.mod").read_text()
    block = re.search(r"^tool \((.*?)^\)", text, re.S | re.M)
    lines = block.group(1).split() if block else []
    return lines + re.findall(r"^tool ([^(\s]+)$", text, re.M)


def listing(engine: str) -> dict[str, dict]:
    """ImportPath -> ``go list`` record (Module, Imports, Dir, GoFiles) for an engine's binaries."""
    cache = Path(os.environ.get("GPUFLEET_ENGINES_CACHE", Path.home() / ".cache/gpufleet/engines"))
    env = dict(os.environ, GOMODCACHE=str(cache / "gomod"), GOFLAGS="-mod=mod", GOPROXY="off")
    env.update(CGO_ENABLED="0", GOTOOLCHAIN="local", GOCACHE=str(cache / "gobuild"))
    fields = "ImportPath,Module,GoFiles,Dir,Imports,Standard"
    out = subprocess.run(
        ["go", "list", "-e", "-deps", f"-json={fields}", *tools(engine)],
        cwd=ENGINES / engine,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    decoder, at, records = json.JSONDecoder(), 0, {}
    while (at := _skip(out, at)) < len(out):
        record, at = decoder.raw_decode(out, at)
        records[record["ImportPath"]] = record
    return records


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def source_bytes(record: dict) -> int:
    folder = Path(record.get("Dir", ""))
    return sum((folder / name).stat().st_size for name in record.get("GoFiles", []) if (folder / name).exists())


def module_of(record: dict) -> dict:
    """The module a package is compiled from: a ``replace`` directive's target where there is one."""
    module = record.get("Module") or {}
    replaced = module.get("Replace") or {}
    return {"Path": module.get("Path", ""), "Version": replaced.get("Version", module.get("Version"))}


def version(record: dict, pins: dict[str, str]) -> str:
    module = module_of(record)
    if record.get("Standard"):
        return "std"
    return pins.get(module["Path"], module["Version"] or "main")


def actions(records: dict[str, dict], pins: dict[str, str]) -> dict[str, tuple[str, str, int]]:
    """Action key -> (import path, module@version, bytes): a package's key covers its imports' keys."""
    keys: dict[str, str] = {}

    def key(path: str) -> str:
        if path not in keys:
            record = records.get(path)
            if record is None:
                return path
            keys[path] = "cycle"
            deps = ",".join(sorted(key(imported) for imported in record.get("Imports", [])))
            keys[path] = hashlib.sha1(f"{path}@{version(record, pins)}|{deps}".encode()).hexdigest()
        return keys[path]

    out = {}
    for path, record in records.items():
        module = (record.get("Module") or {}).get("Path", "std" if record.get("Standard") else "")
        out[key(path)] = (path, f"{module}@{version(record, pins)}", source_bytes(record))
    return out


def newest(versions: list[str]) -> str:
    return max(versions, key=lambda v: tuple(int(x) for x in re.findall(r"\d+", v)[:3]))


def group_pins(group: list[str], lists: dict[str, dict[str, dict]]) -> dict[str, str]:
    """One build list for a group: every module at the newest version any member requires."""
    seen: dict[str, list[str]] = defaultdict(list)
    for engine in group:
        for record in lists[engine].values():
            module = module_of(record)
            if module["Version"]:
                seen[module["Path"]].append(module["Version"])
    return {path: newest(versions) for path, versions in seen.items()}


def compiled(lists: dict[str, dict[str, dict]], groups: list[list[str]]) -> dict[str, tuple[str, str, int]]:
    grouped = {engine for group in groups for engine in group}
    every = [g for g in groups if set(g) <= set(lists)] + [[e] for e in lists if e not in grouped]
    out: dict[str, tuple[str, str, int]] = {}
    for group in every:
        pins = group_pins(group, lists) if len(group) > 1 else {}
        for engine in group:
            out.update(actions(lists[engine], pins))
    return out


def report(lists: dict[str, dict[str, dict]], top: int) -> dict:
    today = compiled(lists, [])
    floor = sum({path: size for path, _, size in today.values()}.values())
    mb = lambda acts: sum(size for _, _, size in acts.values()) / 1e6  # noqa: E731
    result = {"floor_mb": round(floor / 1e6, 1), "today_mb": round(mb(today), 1), "groupings": {}}
    print(f"floor (every package once, one version): {floor / 1e6:.0f} MB of Go source")
    print(f"today (one compile per distinct action): {mb(today):.0f} MB = {mb(today) * 1e6 / floor:.2f}x the floor")
    for name, groups in GROUPINGS.items():
        figure = mb(compiled(lists, groups))
        result["groupings"][name] = round(figure, 1)
        print(f"  {name}: {figure:.0f} MB = {figure * 1e6 / floor:.2f}x")
    per_module: dict[str, list] = defaultdict(lambda: [0, set(), {}])
    for path, at, size in today.values():
        module, ver = at.rsplit("@", 1)
        row = per_module[module]
        row[0] += size
        row[1].add(ver)
        row[2][path] = size
    rows = sorted(per_module.items(), key=lambda kv: kv[1][0] - sum(kv[1][2].values()), reverse=True)
    print(f"modules compiled more than once (MB today / MB once; versions), top {top}:")
    for module, (size, versions, once) in rows[:top]:
        print(
            f"  {module:48s} {size / 1e6:6.1f} / {sum(once.values()) / 1e6:5.1f}  {len(versions)}: {' '.join(sorted(versions))[:80]}"
        )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = sorted(p.parent.name for p in ENGINES.glob("*/go.mod"))
    parser.add_argument("--engines", default=",".join(names), help="comma-separated engine folders")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    lists = {engine: listing(engine) for engine in args.engines.split(",")}
    for engine, records in lists.items():
        size = sum(source_bytes(r) for r in records.values()) / 1e6
        print(f"{engine:18s} {len(records):5d} packages, {size:6.1f} MB of Go source")
    print(json.dumps({"name": "engine_compile_share", **report(lists, args.top)}))


if __name__ == "__main__":
    main()
