"""The engines' shared library versions: which modules two engines compile at different versions.

A cold build compiles every package once per version of its module in any engine's build list
(the Go build cache shares a compiled package between engines only when its module and all of its
dependencies' compiled outputs are the same). Each engine pins its own Kubernetes libraries and,
through them, its own golang.org/x, gRPC, protobuf and OpenTelemetry, so the same library is
compiled up to seven times (``bench/engine_build_shared.py`` measures it). Aligning them makes
one build graph where the engines allow:

- a module outside the Kubernetes family is taken at the newest version any engine requires;
- a Kubernetes-family module (``k8s.io/*``, ``sigs.k8s.io/*`` and the CEL and OpenAPI libraries
  Kubernetes pins tightly) at the newest version among the engines on the same Kubernetes minor
  (their ``k8s.io/api``), so no engine moves to another Kubernetes minor;
- never an engine's own product module (:data:`PINNED`), nor a module an engine replaces by
  another or outside the Kubernetes family (that engine's deliberate pin: Volcano's gRPC and
  OpenTelemetry exporter); a Kubernetes-family module an engine replaces by itself at another
  version (Volcano's and scheduler-plugins' staging modules) moves like the others, by its
  ``replace`` line.

Read from the ``go.mod`` files alone (a Go ≥ 1.17 ``go.mod`` lists every module that provides a
package to the build), so the check needs no Go. Called by ``scripts/align_engines.py`` (which
applies :func:`targets` with ``go get``) and by tests/sandbox/test_gomod.py (which requires the
committed engines to be aligned).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

PINNED = (
    "sigs.k8s.io/kueue",
    "volcano.sh/",
    "sigs.k8s.io/scheduler-plugins",
    "sigs.k8s.io/kwok",
    "k8s.io/kube-state-metrics",
    "go.etcd.io/etcd/",
    "github.com/pulumi/",
)
"""Module prefixes that are an engine's own pins (the versions docs/sandbox.md names): never aligned.
``k8s.io/kubernetes`` is not among them: ``kube``'s pin is alone on its minor, and Volcano and
scheduler-plugins use it as a library on theirs."""

KUBE_FAMILY = (
    "k8s.io/",
    "sigs.k8s.io/",
    "github.com/google/cel-go",
    "cel.dev/expr",
    "github.com/google/gnostic-models",
)
"""Modules aligned only among engines on the same Kubernetes minor."""

_REQUIRE = re.compile(r"^\s*(?:require\s+)?([^\s()]+)\s+(v\S+)", re.M)
_REPLACE = re.compile(r"^\s*(?:replace\s+)?([^\s()]+)(?:\s+v\S+)?\s+=>\s+(\S+)(?:\s+(v\S+))?", re.M)


@dataclass(frozen=True)
class GoMod:
    """One engine's ``go.mod``: the version each module is built at, and which modules it replaces
    (``pinned``: by another module or without a version; ``same``: by itself at another version)."""

    engine: str
    versions: dict[str, str]
    replaced: frozenset[str]
    same: frozenset[str] = frozenset()

    @property
    def kube_minor(self) -> str:
        """``v0.36`` for an engine on ``k8s.io/api`` v0.36.x; empty without Kubernetes libraries."""
        version = self.versions.get("k8s.io/api", "")
        return ".".join(version.split(".")[:2])


def parse(engine: str, text: str) -> GoMod:
    """The build versions of a ``go.mod``'s text: a replacement's version wins over the requirement's."""
    body = "\n".join(line.split("//", 1)[0] for line in text.splitlines())
    blocks = re.split(r"^(?=\S)", body, flags=re.M)
    versions: dict[str, str] = {}
    replaced: set[str] = set()
    same: set[str] = set()
    for block in blocks:
        if block.startswith("require"):
            versions.update(_REQUIRE.findall(block))
    for block in blocks:
        if block.startswith("replace"):
            for module, target, version in _REPLACE.findall(block):
                replaced.add(module)
                if version and module in versions:
                    versions[module] = version
                    if target == module:
                        same.add(module)
    return GoMod(engine, versions, frozenset(replaced), frozenset(same))


def read(engines_dir: Path) -> list[GoMod]:
    """Every engine folder's ``go.mod`` under ``engines_dir``, by folder name."""
    return [parse(p.parent.name, p.read_text()) for p in sorted(engines_dir.glob("*/go.mod"))]


def _semver(version: str) -> tuple[tuple[int, ...], tuple[tuple[int, int | str], ...]]:
    core, _, pre = version.lstrip("v").split("+", 1)[0].partition("-")
    nums = tuple(int(n) for n in core.split("."))
    if not pre:
        return nums, ((2, ""),)  # a release sorts after its pre-releases
    parts = tuple((0, int(p)) if p.isdigit() else (1, p) for p in pre.split("."))
    return nums, ((1, ""), *parts)


def newer(a: str, b: str) -> bool:
    """Whether Go version ``a`` is newer than ``b`` by semantic-version precedence (pseudo-versions included)."""
    return _semver(a) > _semver(b)


def _aligned(module: str) -> bool:
    return not module.startswith(PINNED)


def _scope(mods: list[GoMod], mod: GoMod, module: str) -> list[GoMod]:
    if module.startswith(KUBE_FAMILY):
        return [m for m in mods if m.kube_minor == mod.kube_minor]
    return mods


def movable(mod: GoMod, module: str) -> bool:
    """Whether ``module`` may move in ``mod``: not a pin, and replaced only by itself in the Kubernetes family."""
    if not _aligned(module):
        return False
    if module in mod.replaced:
        return module in mod.same and module.startswith(KUBE_FAMILY)
    return True


def targets(mods: list[GoMod]) -> dict[str, dict[str, str]]:
    """Per engine, the modules to move and the version to move them to (only ever newer).

    A module the engine replaces by itself (``k8s.io/api => k8s.io/api v0.34.1``) moves by its
    ``replace`` line (:func:`movable`); the caller tells the two apart by ``GoMod.same``."""
    moves: dict[str, dict[str, str]] = {}
    for mod in mods:
        for module, version in mod.versions.items():
            if not movable(mod, module):
                continue
            best = version
            for other in _scope(mods, mod, module):
                theirs = other.versions.get(module)
                if theirs and newer(theirs, best):
                    best = theirs
            if best != version:
                moves.setdefault(mod.engine, {})[module] = best
    return moves
