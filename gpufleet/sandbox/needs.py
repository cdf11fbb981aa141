"""What the sandbox needs from the machine, checked before anything starts, each missing need in one line.

- Go :data:`GO_MIN` or newer on PATH (:data:`GO`: the newest ``go`` directive of
  sandbox/engines/*/go.mod, read from them; the build runs with ``GOTOOLCHAIN=local``) to build
  the engines: :func:`gpufleet.sandbox.engines.locate`;
- about :data:`BUILD_GB` GB of disk under the engines' cache for one cold build (with
  :data:`BUILD_MINUTES`, from ``sandbox/engines/cold-build.env``, which build.sh reads too):
  named with the free space when engines are missing (:func:`disk_line`);
- root, or CAP_SYS_ADMIN, for the private mount namespace Kueue runs in (``unshare --mount``:
  ``gpufleet.sandbox.kueue``): :func:`mount_namespace`, called by ``gpufleet.sandbox.up``.
docs/sandbox.md ("What the sandbox needs") and the README say the same (tests/sandbox/test_needs.py checks).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import gpufleet
from gpufleet.sandbox.kueue import UNSHARE

ENGINES_DIR = Path(gpufleet.__file__).resolve().parent.parent / "sandbox" / "engines"
"""The engines' Go modules, one folder each (``gpufleet.sandbox.engines`` builds from them)."""


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text))


def go_minimum(engines_dir: Path = ENGINES_DIR) -> str:
    """The newest ``go`` directive of the engines' go.mod files: the oldest Go that builds them all."""
    found = [
        m.group(1)
        for gomod in engines_dir.glob("*/go.mod")
        if (m := re.search(r"^go (\S+)\s*$", gomod.read_text(), re.M))
    ]
    return max(found, key=_version, default="")


def _cold_build(engines_dir: Path = ENGINES_DIR) -> dict[str, int]:
    """``cold-build.env``'s figures; none outside a clone (an installed wheel: ``locate`` says it needs one)."""
    try:
        lines = (engines_dir / "cold-build.env").read_text().splitlines()
    except OSError:
        return {}
    pairs = (line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))
    return {key.strip(): int(value) for key, value in pairs}


GO_MIN = go_minimum()
GO = f"Go {GO_MIN} or newer"
_COLD = _cold_build()
BUILD_GB = _COLD.get("BUILD_GB", 0)
BUILD_MINUTES = _COLD.get("BUILD_MINUTES", 0)
PROBE = [*UNSHARE, "true"]
FIX = "docs/sandbox.md, \"What the sandbox needs\""


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot start on this machine as it is; the message names what is missing and the fix
    (the CLI prints it as a usage error)."""


class EnginesMissing(SandboxUnavailable):
    """The engines are not built (or Go is missing); the message gives the command that builds them
    (``gpufleet.sandbox.engines`` raises it)."""


class NeedMissing(SandboxUnavailable):
    """The machine lacks something the sandbox needs; the message names it and the fix."""


def disk_line(cache: Path) -> str:
    """How much a cold build needs under ``cache``, and how much its file system has free."""
    where = cache
    while not where.exists() and where != where.parent:
        where = where.parent
    free = shutil.disk_usage(where).free / 1e9
    return f"a cold build needs about {BUILD_GB} GB under {cache} ({free:.0f} GB free there)"


def mount_namespace(run=subprocess.run) -> None:
    """Raise :class:`NeedMissing` when this user cannot make the private mount namespace Kueue runs in."""
    if shutil.which("unshare") is None:
        raise NeedMissing(
            "unshare is not on PATH: Kueue runs in a private mount namespace (util-linux's unshare); "
            f"install util-linux ({FIX})"
        )
    try:
        done = run(PROBE, capture_output=True, text=True, timeout=30)
    except (subprocess.TimeoutExpired, OSError) as exc:
        why = f"`{' '.join(PROBE)}` did not finish in 30 s" if isinstance(exc, subprocess.TimeoutExpired) else str(exc)
        raise NeedMissing(
            f"cannot make a private mount namespace ({why}): Kueue runs in one (`unshare --mount`); "
            f"check that `{' '.join(PROBE)}` works as this user ({FIX})"
        ) from None
    if done.returncode != 0:
        last = (done.stderr or "").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        raise NeedMissing(
            f"cannot make a private mount namespace ({last[0]}): Kueue runs in one (`unshare --mount`), "
            f"which needs root or CAP_SYS_ADMIN; run the sandbox as root ({FIX})"
        )
