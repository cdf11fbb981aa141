"""``keep`` and ``exit_now``: a command that ends its process right after its work skips freeing its heap.

Called by the linter (``gpufleet.lint.runner`` keeps a run's objects, loads and views;
``gpufleet.cli.lint_run`` its report) and by the process entry point
(``gpufleet.cli.app.entry``: the ``gpufleet`` console script and ``python -m gpufleet``),
which ends a ``gpufleet lint`` process with :func:`exit_now` once its output is written.

Freeing a large run object by object is work for nothing when the process ends next: at
100,000 objects it took about 1.5 s when the run's first-pass results went and more at exit,
a tenth of the run (docs/performance.md). The operating system takes the whole heap back at
once instead; mypy ends its processes the same way (``mypy.util.hard_exit``).

Only a process that called :func:`keep_until_exit` keeps anything: for tests and library
callers :func:`keep` does nothing, and their memory is freed as usual. :func:`exit_now`
flushes standard output and standard error, then ends the process without running exit
handlers (gpufleet registers none) or freeing anything. Standard library only.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

_kept: list[tuple[object, ...]] | None = None


def keep_until_exit() -> None:
    """From now on :func:`keep` holds what it is given until the process ends."""
    global _kept
    if _kept is None:
        _kept = []


def keeping() -> bool:
    return _kept is not None


def keep(*values: object) -> None:
    """Hold ``values`` until the process ends, when it will end at once (:func:`keep_until_exit`); else nothing."""
    if _kept is not None:
        _kept.append(values)


def exit_now(code: int) -> NoReturn:
    """End the process with ``code`` at once: standard output and error flushed, nothing freed."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or full stream: the command has reported it (cli.exits.flushed)
            pass
    os._exit(code)
