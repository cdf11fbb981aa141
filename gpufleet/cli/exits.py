"""The exit-code contract of every ``gpufleet`` command, and the one way a command fails.

Called by every command module, the lint fast path and :func:`gpufleet.cli.app.main`.
The codes are the README's table ("Exit codes"; ``tests/cli/test_contract.py`` reads it):
0 fine, 1 invalid input or blocking findings, 2 usage or I/O error. A command that cannot
go on raises :class:`CliError` with one line per problem; :func:`guarded` (every
registered command) and ``main`` print those lines on standard error and exit with the
code, and turn an ``OSError`` nobody caught (a full disk, a folder that is not there)
into one line naming the path, exit 2, never a traceback.

Standard library only: the lint fast path imports it without typer.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Any, Callable, Sequence

OK = 0
INVALID = 1
USAGE = 2


class CliError(Exception):
    """A command that cannot go on: these lines on standard error, then exit ``code``."""

    def __init__(self, lines: Sequence[str], code: int = USAGE) -> None:
        super().__init__("; ".join(lines))
        self.lines = list(lines)
        self.code = code


def stdout_name() -> str:
    """``standard output`` and, where the system says, the file behind it (``/dev/full``)."""
    try:
        target = os.readlink(f"/proc/self/fd/{sys.stdout.fileno()}")
    except (OSError, ValueError, AttributeError):
        return "standard output"
    return f"standard output ({target})" if target.startswith("/") else "standard output"


def os_error_line(exc: OSError) -> str:
    """One line for an I/O error: the path (or standard output), what failed, the fix."""
    where = exc.filename if exc.filename is not None else stdout_name()
    reason = exc.strerror or str(exc)
    return f"{where}: cannot read or write: {reason} (fix: {_fix(exc)})"


def _fix(exc: OSError) -> str:
    import errno

    return {
        errno.ENOENT: "create the folder first or correct the path",
        errno.EISDIR: "name a file, not a directory",
        errno.ENOTDIR: "a part of the path is a file, not a folder: correct the path",
        errno.EACCES: "check the file's permissions",
        errno.ENOSPC: "free space on the device or write elsewhere",
    }.get(exc.errno or 0, "check the path and the device")


def silence_stdout() -> None:
    """After a failed write to standard output, point it at /dev/null so exiting does not fail again."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):
        return  # an in-memory stream (tests): nothing is flushed at exit
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


def report(lines: Sequence[str], code: int, prefix: str = "") -> int:
    for line in lines:
        print(f"{prefix}{line}", file=sys.stderr)
    return code


def handle(exc: BaseException, prefix: str = "") -> int:
    """The exit code for ``exc`` (a :class:`CliError` or an ``OSError``), its lines printed."""
    if isinstance(exc, CliError):
        return report(exc.lines, exc.code, prefix)
    assert isinstance(exc, OSError)
    failed_stdout = exc.filename is None
    line = os_error_line(exc)  # before silencing: it names the file behind standard output
    if failed_stdout:
        silence_stdout()
    if isinstance(exc, BrokenPipeError) and failed_stdout:
        return USAGE  # `gpufleet rules | head`: the reader left; nothing to say
    return report([line], USAGE, prefix)


def flushed(code: int, prefix: str = "") -> int:
    """``code`` once standard output is flushed; 2 with one line when it cannot be written."""
    try:
        sys.stdout.flush()
    except OSError as exc:
        return handle(exc, prefix)
    return code


def guarded(command: Callable[..., Any]) -> Callable[..., Any]:
    """``command`` with :class:`CliError` and ``OSError`` turned into lines and an exit code."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        import typer

        try:
            return command(*args, **kwargs)
        except (CliError, OSError) as exc:
            raise typer.Exit(handle(exc)) from None

    return run
