"""The e2e tier starts as soon as the sandbox's engines are built, while the Pulumi engines still build.

scripts/test.sh builds the engines in the background (``sandbox/engines/build.sh``: the sandbox's
engines first, the folders with a ``late`` file, the Pulumi CLI and provider, last) and writes the
build's exit code to ``GPUFLEET_ENGINES_BUILD_STATUS`` when it ends. On a cold cache the Pulumi
engines take about a third of the build (docs/sandbox.md, "Measured"), and the e2e modules mostly
wait on their engines, so the modules that need only the sandbox run meanwhile:

- the session waits for :data:`EARLY` (tests/e2e/conftest.py, ``engines_built``);
- a module that needs the Pulumi engines (``NEEDS_PULUMI = True``) or whose timing is part of what it
  checks (``ALONE = True``: not beside a build) waits for the whole build, and :func:`late_last`
  moves such modules (with the modules sharing their sandbox) behind the others;
- tests/e2e/pulumi_env.py waits for the whole build before it locates the Pulumi engines, so a
  module that forgets the flag waits (in place) rather than failing.

Without the status variable (pytest run by hand) nothing waits: the engines are built or
``locate`` names what is missing, as before. Called by tests/e2e/conftest.py and pulumi_env.py.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

from gpufleet.sandbox.engines import locate
from gpufleet.sandbox.needs import EnginesMissing

STATUS_ENV = "GPUFLEET_ENGINES_BUILD_STATUS"
LIMIT = 3 * 3600.0
POLL = 5.0
EARLY = ("etcd", "kube", "kwok", "kueue", "volcano", "coscheduling", "ksm")
"""The sandbox's engines (gpufleet.sandbox.up.engines_needed, and kube-state-metrics for the alert tests)."""


class BuildEnded(Exception):
    """The background build ended with a non-zero exit code (its lines are in the run's output)."""


def _built(engines: tuple[str, ...]) -> bool:
    try:
        locate(list(engines))
    except EnginesMissing:
        return False
    return True


def wait(
    engines: tuple[str, ...] | None,
    *,
    status: str | None = None,
    built: Callable[[tuple[str, ...]], bool] = _built,
    poll: float = POLL,
    limit: float = LIMIT,
) -> float:
    """Block until ``engines`` are built (``None``: until the whole build has ended); the seconds waited.

    Raises :class:`BuildEnded` when the build failed, TimeoutError past ``limit`` seconds."""
    path = status if status is not None else os.environ.get(STATUS_ENV)
    if not path:
        return 0.0
    began = time.monotonic()
    while True:
        ended = Path(path)
        code = ended.read_text().strip() if ended.is_file() else ""
        if code:  # empty: the shell has created the file and not yet written the code
            if code != "0":
                raise BuildEnded(f"the engine build failed (exit {code}): its last lines are above")
            return time.monotonic() - began
        if engines is not None and built(engines):
            return time.monotonic() - began
        if time.monotonic() - began > limit:
            raise TimeoutError(f"the engine build did not finish within {limit / 60:.0f} min")
        time.sleep(poll)


def is_late(module: object) -> bool:
    """Whether an e2e module waits for the whole build: it runs the Pulumi engines, or runs alone."""
    return bool(getattr(module, "NEEDS_PULUMI", False) or getattr(module, "ALONE", False))


def late_last(order: list[str], keys: dict[str, str | None], late: set[str]) -> list[str]:
    """``order`` with each run of modules sharing a pool key kept together, the runs holding a late module last."""
    runs: list[list[str]] = []
    for name in order:
        if runs and keys.get(name) is not None and keys.get(runs[-1][-1]) == keys.get(name):
            runs[-1].append(name)
        else:
            runs.append([name])
    return [name for run in sorted(runs, key=lambda run: bool(late & set(run))) for name in run]
