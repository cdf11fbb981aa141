"""Where ``gpufleet sandbox up`` spends its time: each step's start, readiness and wait, logged.

One line per step in the sandbox's ``logs/`` :data:`UP_LOG`: the seconds since ``up`` began, then
what finished. Called by ``gpufleet.sandbox.up`` (its ``_Run``); ``bench/sandbox_up_bench.py``
reads the file.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from gpufleet.sandbox.kube import wait_for
from gpufleet.sandbox.procs import Proc, wait_until

UP_LOG = "up.log"
"""Under the sandbox's ``logs/``: when each step of ``up`` finished, in seconds since it began
(read by bench/sandbox_up_bench.py)."""

LAST_CHANCE = 10.0
"""Seconds still given to a process started early (the controller) whose timeout, counted from its start,
the steps in between have spent: it is most likely ready, and a negative budget would fail it unprobed."""


class Steps:
    """The timing of one ``up``: when it began, when each process started (:meth:`begun`)."""

    def __init__(self, logs: Path) -> None:
        self.path = logs / UP_LOG
        self.began = time.monotonic()
        self._began: dict[str, float] = {}

    def begun(self, name: str) -> None:
        """``name`` started now: :meth:`ready` counts its timeout from here."""
        self._began[name] = time.monotonic()

    def ready(self, proc: Proc, probe: Callable[[], bool], timeout: float) -> None:
        """Wait for ``probe`` of ``proc``, bounded by ``timeout`` from when it started (at least :data:`LAST_CHANCE`)."""
        waited = time.monotonic() - self._began[proc.name]
        wait_until(proc, probe, max(timeout - waited, LAST_CHANCE), "ready")
        self.log(f"{proc.name} ready in {time.monotonic() - self._began[proc.name]:.1f} s")

    def wait(self, what: str, probe: Callable[[], object], timeout: float, interval: float = 0.5) -> None:
        """:func:`wait_for` ``what``, logged."""
        wait_for(what, probe, timeout=timeout, interval=interval)
        self.log(f"{what}: done")

    def log(self, line: str) -> None:
        """One line: the seconds since ``up`` began, then ``line``."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a") as out:
            out.write(f"{time.monotonic() - self.began:7.1f} {line}\n")
