"""Regenerates gpufleet/crdschema/bundled/: the CRD schemas gpufleet checks against by default.

Usage: python scripts/bundle_crds.py [--check] [--modcache DIR]

For each engine and operator in :data:`SOURCES` (the engines at the versions the model pins:
``gpufleet.model`` chart versions; the workload operators at the versions named here), runs
``go mod download -json MODULE@VERSION`` with its own module cache (``--modcache``, default
``~/.cache/gpufleet/crd-modules``; ``GOFLAGS=-mod=mod``, ``GOTOOLCHAIN=local``), reads the CRD
YAML files at the listed paths of the module's directory and writes, per CRD, one compact JSON
document holding only what the schema rules read (apiVersion, kind, name, group, kind names,
scope, and each version's name, served flag and ``openAPIV3Schema`` without its
``description`` texts). Also writes ``index.json`` (``group/version/Kind`` -> file, what
``gpufleet.crdschema.bundled`` loads lazily), ``PROVENANCE.json`` (module, version, path in the
module and sha256 of every source file) and each module's LICENSE under ``licenses/``.

``--check`` writes nothing and exits 1 when the folder differs from what the modules give.
Needs Go on PATH and the Go module proxy (or a module cache that already holds the versions).
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gpufleet.model.coscheduling import CoschedulingEngine  # noqa: E402
from gpufleet.model.fleet import KueueEngine, VolcanoEngine  # noqa: E402

OUT = ROOT / "gpufleet" / "crdschema" / "bundled"
MODCACHE = Path.home() / ".cache" / "gpufleet" / "crd-modules"

# (folder, module, version, paths in the module (globs), versions to keep (None: all))
SOURCES: tuple[tuple[str, str, str, tuple[str, ...], tuple[str, ...] | None], ...] = (
    ("kueue", "sigs.k8s.io/kueue", "v" + KueueEngine().chart_version, ("config/components/crd/bases/*.yaml",), None),
    (
        "volcano",
        "volcano.sh/volcano",
        "v" + VolcanoEngine().chart_version,
        ("config/crd/volcano/bases/*.yaml", "config/crd/jobflow/bases/*.yaml"),
        None,
    ),
    (
        "scheduler-plugins",
        "sigs.k8s.io/scheduler-plugins",
        "v" + CoschedulingEngine().chart_version,
        ("config/crd/bases/*.yaml",),
        None,
    ),
    ("jobset", "sigs.k8s.io/jobset", "v0.12.0", ("config/components/crd/bases/*.yaml",), None),
    ("lws", "sigs.k8s.io/lws", "v0.9.0", ("config/crd/bases/*.yaml",), None),
    # training-operator's MPIJob serves kubeflow.org/v1 and mpi-operator's the same CRD name at
    # v2beta1: both versions are carried, each from its own project (a cluster runs one of them).
    ("training-operator", "github.com/kubeflow/training-operator", "v1.9.4", ("manifests/base/crds/*.yaml",), None),
    ("mpi-operator", "github.com/kubeflow/mpi-operator", "v0.8.0", ("manifests/base/kubeflow.org_mpijobs.yaml",), None),
    ("trainer", "github.com/kubeflow/trainer/v2", "v2.3.0", ("manifests/base/crds/*.yaml",), None),
    ("kuberay", "github.com/ray-project/kuberay/ray-operator", "v1.5.0", ("config/crd/bases/*.yaml",), None),
)

# Keys of a schema node whose values are schemas, maps of schemas or lists of schemas.
_SCHEMA = ("items", "additionalProperties", "not")
_SCHEMA_MAPS = ("properties", "patternProperties", "definitions")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf")


def module_dir(module: str, version: str, modcache: Path) -> Path:
    """The module's directory in ``modcache`` (downloaded through the Go module proxy when absent)."""
    env = {**os.environ, "GOMODCACHE": str(modcache), "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}
    done = subprocess.run(
        ["go", "mod", "download", "-json", f"{module}@{version}"], capture_output=True, text=True, env=env
    )
    info = json.loads(done.stdout or "{}")
    if done.returncode != 0 or info.get("Error") or not info.get("Dir"):
        sys.exit(f"go mod download {module}@{version} failed: {info.get('Error') or done.stderr.strip()}")
    return Path(info["Dir"])


def strip(node: Any) -> Any:
    """A schema node without its ``description`` texts (what the checks never read), recursively."""
    if not isinstance(node, dict):
        return node
    out = {k: v for k, v in node.items() if k != "description"}
    for key in _SCHEMA:
        if isinstance(out.get(key), dict):
            out[key] = strip(out[key])
        elif isinstance(out.get(key), list):
            out[key] = [strip(item) for item in out[key]]
    for key in _SCHEMA_MAPS:
        if isinstance(out.get(key), dict):
            out[key] = {name: strip(schema) for name, schema in out[key].items()}
    for key in _SCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [strip(item) for item in out[key]]
    return out


def compact(crd: dict[str, Any], keep: tuple[str, ...] | None) -> dict[str, Any]:
    """The parts of a CRD the schema rules read (``gpufleet.crdschema.loader`` loads it as any CRD)."""
    spec = crd["spec"]
    versions = [
        {
            "name": v["name"],
            "served": v.get("served", True),
            "storage": v.get("storage", False),
            "schema": {"openAPIV3Schema": strip(v["schema"]["openAPIV3Schema"])},
        }
        for v in spec["versions"]
        if keep is None or v["name"] in keep
    ]
    return {
        "apiVersion": crd["apiVersion"],
        "kind": "CustomResourceDefinition",
        "metadata": {"name": crd["metadata"]["name"]},
        "spec": {
            "group": spec["group"],
            "names": {"kind": spec["names"]["kind"], "plural": spec["names"]["plural"]},
            "scope": spec.get("scope", "Namespaced"),
            "versions": versions,
        },
    }


def dump(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"


def generate(out: Path, modcache: Path) -> None:
    """Write the whole folder into ``out`` (empty)."""
    index: dict[str, str] = {}
    provenance: dict[str, Any] = {}
    (out / "licenses").mkdir(parents=True)
    (out / "__init__.py").write_text((OUT / "__init__.py").read_text(encoding="utf-8"), encoding="utf-8")
    for folder, module, version, globs, keep in SOURCES:
        base = module_dir(module, version, modcache)
        shutil.copyfile(base / "LICENSE", out / "licenses" / f"{folder}.LICENSE")
        files = []
        for pattern in globs:
            for source in sorted(base.glob(pattern)):
                raw = source.read_bytes()
                for crd in yaml.safe_load_all(raw):
                    if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
                        continue
                    doc = compact(crd, keep)
                    name = f"{folder}/{doc['metadata']['name']}.json"
                    (out / folder).mkdir(exist_ok=True)
                    (out / name).write_text(dump(doc), encoding="utf-8")
                    spec = doc["spec"]
                    for v in spec["versions"]:
                        key = f"{spec['group']}/{v['name']}/{spec['names']['kind']}"
                        if key in index:
                            sys.exit(f"{key} is in both {index[key]} and {name}: keep one (SOURCES' versions)")
                        index[key] = name
                    files.append(
                        {
                            "path": str(source.relative_to(base)),
                            "sha256": hashlib.sha256(raw).hexdigest(),
                            "crd": doc["metadata"]["name"],
                            "versions": [v["name"] for v in spec["versions"]],
                            "bundled": name,
                        }
                    )
        provenance[folder] = {
            "module": module,
            "version": version,
            "license": f"licenses/{folder}.LICENSE",
            "files": files,
        }
    (out / "index.json").write_text(dump(dict(sorted(index.items()))), encoding="utf-8")
    (out / "PROVENANCE.json").write_text(json.dumps(provenance, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def differs(a: Path, b: Path) -> list[str]:
    """Relative paths that differ between two folders (missing on either side included)."""
    names = {p.relative_to(a) for p in a.rglob("*") if p.is_file()} | {
        p.relative_to(b) for p in b.rglob("*") if p.is_file()
    }
    names = {n for n in names if "__pycache__" not in n.parts}
    return sorted(
        str(n) for n in names if not (a / n).is_file() or not (b / n).is_file() or not filecmp.cmp(a / n, b / n, False)
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the folder is not up to date")
    parser.add_argument("--modcache", type=Path, default=MODCACHE, help="module cache (default %(default)s)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "bundled"
        generate(fresh, args.modcache)
        changed = differs(fresh, OUT)
        if args.check:
            for name in changed:
                print(f"out of date: gpufleet/crdschema/bundled/{name}")
            return 1 if changed else 0
        shutil.rmtree(OUT)
        shutil.copytree(fresh, OUT)
    print(f"gpufleet/crdschema/bundled: {len(changed)} file(s) changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
