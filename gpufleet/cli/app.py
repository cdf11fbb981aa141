"""The ``gpufleet`` command's entry point (also ``python -m gpufleet``).

Called by users, CI and pre-commit. Exit codes (:mod:`gpufleet.cli.exits`, the README's
table): 0 fine, 1 invalid input or blocking findings, 2 usage or I/O error. Bad input
never prints a traceback: a :class:`~gpufleet.cli.exits.CliError` or an ``OSError`` that
reaches this module (any command, also ones added later) is one line and exit 2, and
standard output is flushed here so a full disk is reported too. A usage error of the typer
application (unknown option, missing argument or option) is one line naming the command and
``--help`` too, exit 2, not typer's boxed message (the app runs with ``standalone_mode=False``). The console script and
``python -m gpufleet`` call :func:`entry`, which ends a lint process at once once its output
is written (:mod:`gpufleet.util.lifetime`); tests and callers in a process use :func:`main`.

Start-up time matters (the pre-commit hook runs ``gpufleet lint`` on every commit,
docs/performance.md), so this module imports nothing heavy: ``gpufleet lint ...``
goes to the argparse fast path (:mod:`gpufleet.cli.lint_fast`), everything else to
the typer application (:mod:`gpufleet.cli.commands`), which imports only the
command group it runs.
"""

from __future__ import annotations

import sys


def entry() -> None:
    """The process entry point (the ``gpufleet`` console script, ``python -m gpufleet``): :func:`main`, except
    that a lint run ends its process at once when its output is written, its objects not freed one by one
    (:mod:`gpufleet.util.lifetime`)."""
    from gpufleet.cli import lint_fast
    from gpufleet.util import lifetime

    argv = sys.argv[1:]
    if lint_fast.takes(argv):
        lifetime.keep_until_exit()
        lifetime.exit_now(run(argv))
    sys.exit(run(argv))


def main() -> None:
    """``gpufleet`` in this process: exits with the command's code (``SystemExit``), memory freed as usual."""
    sys.exit(run(sys.argv[1:]))


def run(argv: list[str]) -> int:
    """Run the command line ``argv`` (without the program name); the exit code."""
    from gpufleet.cli import exits

    try:
        return exits.flushed(_dispatch(argv))
    except (exits.CliError, OSError) as exc:
        return exits.handle(exc)


def _dispatch(argv: list[str]) -> int:
    try:
        return _command(argv)
    except SystemExit as exc:  # typer's and argparse's way to end a command
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)


def _command(argv: list[str]) -> int:
    from gpufleet.cli import exits

    if argv == ["--version"]:
        from gpufleet import __version__

        print(f"gpufleet {__version__}")
        return 0
    from gpufleet.cli import lint_fast

    if lint_fast.takes(argv):
        return lint_fast.main(argv[1:])
    import typer

    from gpufleet.cli.commands import register

    try:
        code = register(argv)(args=argv, prog_name="gpufleet", standalone_mode=False)
    except typer.Abort:
        return exits.report(["gpufleet: aborted"], exits.INVALID)
    except typer.TyperException as exc:  # click's usage errors: one line, not typer's boxed message
        return _usage_error(exc)
    return code if isinstance(code, int) else 0


def _usage_error(exc: Exception) -> int:
    """A usage error (unknown option, missing argument, bad value) as one line naming the command and the fix."""
    from gpufleet.cli import exits

    ctx = getattr(exc, "ctx", None)
    if type(exc).__name__ == "NoArgsIsHelpError":  # `gpufleet`, `gpufleet sandbox`: the help itself
        exc.show()  # type: ignore[attr-defined]  # click's usage errors have show(); the type says Exception
        return exits.USAGE
    command = ctx.command_path if ctx is not None else "gpufleet"
    message = exc.format_message().strip().rstrip(".")  # type: ignore[attr-defined]  # click's usage errors have format_message(); the type says Exception
    return exits.report([f"{command}: {message} (fix: see `{command} --help`)"], getattr(exc, "exit_code", exits.USAGE))
