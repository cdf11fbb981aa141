"""Where the engines' binaries and Go modules are: ``sandbox/engines/build.sh --check``.

The build script owns the cache layout (``$GPUFLEET_ENGINES_CACHE``, by default
``~/.cache/gpufleet/engines``: ``gomod/`` the module cache, ``bin/<engine>-<key>/`` the
binaries, the key a hash of the engine's go.mod, go.sum, the Go version, the flags and its own sources);
this module only asks it. Called by ``gpufleet.sandbox.up`` and ``gpufleet sandbox build``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gpufleet.sandbox.needs import BUILD_MINUTES, ENGINES_DIR, GO, EnginesMissing, disk_line

BUILD = ENGINES_DIR / "build.sh"
BUILD_COMMAND = "bash sandbox/engines/build.sh"
BINARIES = {
    "etcd": ("etcd", "etcd"),
    "kube-apiserver": ("kube", "kube-apiserver"),
    "kube-controller-manager": ("kube", "kube-controller-manager"),
    "kube-scheduler": ("kube", "kube-scheduler"),
    "kwok": ("kwok", "kwok"),
    "kueue": ("kueue", "kueue"),
    "vc-scheduler": ("volcano", "scheduler"),
    "vc-controller-manager": ("volcano", "controller-manager"),
    "vc-webhook-manager": ("volcano", "webhook-manager"),
    "coscheduling": ("coscheduling", "scheduler"),
    "kube-state-metrics": ("ksm", "kube-state-metrics"),
    "jobset": ("jobset", "jobset"),
    "pulumi": ("pulumi", "pulumi"),
    "pulumi-language-python": ("pulumi", "pulumi-language-python"),
    "pulumi-resource-kubernetes": ("pulumi-kubernetes", "pulumi-resource-kubernetes"),
    "pulumi-language-yaml": ("pulumi-yaml", "pulumi-language-yaml"),
}


def cache_dir() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "gpufleet" / "engines"
    return Path(os.environ.get("GPUFLEET_ENGINES_CACHE", default))


def gomodcache() -> Path:
    return cache_dir() / "gomod"


@dataclass(frozen=True)
class Engines:
    dirs: dict[str, Path]

    def binary(self, name: str) -> Path:
        engine, file = BINARIES[name]
        return self.dirs[engine] / file


def locate(engines: list[str]) -> Engines:
    """The binary folders of ``engines``; raise :class:`EnginesMissing` naming what is not built."""
    if not BUILD.is_file():
        raise EnginesMissing(
            f"{BUILD} is missing: the sandbox runs from a gpufleet clone (sandbox/engines holds the Go modules)"
        )
    if shutil.which("go") is None:
        raise EnginesMissing(
            f"Go is not on PATH: the engines are built from their Go modules; install {GO}, then run "
            f"{BUILD_COMMAND} ({disk_line(cache_dir())})"
        )
    done = subprocess.run(["bash", str(BUILD), "--check", *engines], capture_output=True, text=True, timeout=120)
    dirs, missing = {}, []
    for line in done.stdout.splitlines():
        name, _, where = line.partition(" ")
        if where == "-":
            missing.append(name)
        elif where:
            dirs[name] = Path(where)
    if missing or done.returncode not in (0, 4):
        what = ", ".join(missing) or done.stderr.strip()[:300]
        raise EnginesMissing(
            f"engines not built: {what}. Build them (once per machine; cold, about {BUILD_MINUTES} min on 2 cores; "
            f"{disk_line(cache_dir())}) with: {BUILD_COMMAND} {' '.join(missing)}".rstrip()
        )
    return Engines(dirs)
