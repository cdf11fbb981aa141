"""What the sandbox needs from the machine, checked before anything starts, each missing need in one line.

- Go 1.26.6 or newer on PATH (the newest ``go`` directive of sandbox/engines/*/go.mod; the
  build runs with ``GOTOOLCHAIN=local``) to build the engines: :func:`gpufleet.sandbox.engines.locate`;
- about 15 GB of disk under the engines' cache for one cold build (:data:`BUILD_GB`): named
  with the free space when engines are missing (:func:`disk_line`);
- root, or CAP_SYS_ADMIN, for the private mount namespace Kueue runs in (``unshare --mount``:
  ``gpufleet.sandbox.kueue``): :func:`mount_namespace`, called by ``gpufleet.sandbox.up``.
docs/sandbox.md ("What the sandbox needs") and the README say the same.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

GO = "Go 1.26.6 or newer"
BUILD_GB = 15
PROBE = ["unshare", "--mount", "--propagation", "private", "true"]


class EnginesMissing(RuntimeError):
    """The engines are not built (or Go is missing); the message gives the command that builds them
    (``gpufleet.sandbox.engines`` raises it; the CLI prints it as a usage error)."""


class NeedMissing(EnginesMissing):
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
        raise NeedMissing("unshare is not on PATH: Kueue runs in a private mount namespace (util-linux's unshare); "
                          "install util-linux (docs/sandbox.md, \"What the sandbox needs\")")
    done = run(PROBE, capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        why = (done.stderr or "").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        raise NeedMissing(f"cannot make a private mount namespace ({why[0]}): Kueue runs in one (`unshare --mount`), "
                          "which needs root or CAP_SYS_ADMIN; run the sandbox as root "
                          "(docs/sandbox.md, \"What the sandbox needs\")")
