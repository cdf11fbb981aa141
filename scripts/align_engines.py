"""Moves the engines' shared libraries to one version each, so that a cold build compiles them once.

Usage: python scripts/align_engines.py [--check] [--skip ENGINE ...]

Reads sandbox/engines/*/go.mod, computes the moves (``gpufleet.sandbox.gomod.targets``: the newest
version any engine requires, Kubernetes-family modules only among engines on the same minor, the
engines' own pins and replaced modules never) and applies them in each engine's folder
(``go mod edit -require``, then ``go mod tidy``, which raises what the new versions require), again
until nothing moves. Then build the
engines (``bash sandbox/engines/build.sh``) and run the e2e tier: a move that does not compile
is reverted with git and its engine named with ``--skip`` (docs/sandbox.md, "Shared library versions").
``--check`` changes nothing and exits 1 when a move is due (tests/sandbox/test_gomod.py checks the same).
Needs Go on PATH and the Go module proxy; uses the engines' module cache (``build.sh``'s GOMODCACHE).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gpufleet.sandbox import gomod  # noqa: E402
from gpufleet.sandbox.engines import gomodcache  # noqa: E402

ENGINES = ROOT / "sandbox" / "engines"


def _moves(skip: set[str]) -> tuple[dict[str, dict[str, str]], dict[str, gomod.GoMod]]:
    mods = [m for m in gomod.read(ENGINES) if m.engine not in skip]
    return gomod.targets(mods), {m.engine: m for m in mods}


def _go_env() -> dict[str, str]:
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local", CGO_ENABLED="0")
    env["GOMODCACHE"] = str(gomodcache())
    return env


def _go(engine: str, *args: str) -> None:
    done = subprocess.run(["go", *args], cwd=ENGINES / engine, env=_go_env(), capture_output=True, text=True)
    noise = ("go: downloading", "go: finding")
    said = [line for line in done.stderr.splitlines() if not line.startswith(noise)]
    if said:
        print("\n".join(f"  {engine}: {line}" for line in said), file=sys.stderr)
    if done.returncode:
        raise SystemExit(f"align_engines: go {' '.join(args[:2])} failed in sandbox/engines/{engine} (above)")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a move is due")
    parser.add_argument("--skip", nargs="*", default=[], help="engines left as they are (a move did not compile)")
    args = parser.parse_args(argv)
    for rounds in range(1, 9):
        moves, mods = _moves(set(args.skip))
        if not moves:
            print(f"aligned after {rounds - 1} round(s)")
            return 0
        for engine, targets in sorted(moves.items()):
            print(
                f"{engine}: {len(targets)} module(s) to move: "
                + " ".join(f"{p}@{v}" for p, v in sorted(targets.items()))
            )
            if args.check:
                continue
            same = mods[engine].same
            edits = [
                f"-replace={path}={path}@{version}" if path in same else f"-require={path}@{version}"
                for path, version in sorted(targets.items())
            ]
            _go(engine, "mod", "edit", *edits)
            _go(engine, "mod", "tidy", "-e")
        if args.check:
            return 1
    print("still moving after 8 rounds", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
