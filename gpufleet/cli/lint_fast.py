"""The start-up fast path of ``gpufleet lint``: argparse instead of typer.

Called by :func:`gpufleet.cli.app.main` when the command line is ``gpufleet lint ...``
without ``--help``. typer (0.29) builds a pydantic adapter for every parameter, and
importing typer, pydantic and the other commands cost about 0.9 s per run; a pre-commit
hook pays that on every commit (issue 10). This parser accepts exactly the options of
the typer command in :mod:`gpufleet.cli.lint_cmds` (a test compares the two) and hands
them to :func:`gpufleet.cli.lint_run.run`, so both front ends behave the same; help text
stays with typer (``gpufleet lint --help`` takes the full path).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import NoReturn, Sequence


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line, as the typer commands' usage errors (gpufleet.cli.app), not argparse's usage block."""
        from gpufleet.cli.exits import USAGE, CliError

        raise CliError([f"gpufleet lint: {message} (fix: see `gpufleet lint --help`)"], USAGE)


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="gpufleet lint", add_help=False, allow_abbrev=False)
    p.add_argument("paths", nargs="+")
    p.add_argument("--fleet")
    p.add_argument("--fleet-context", dest="fleet_context")
    p.add_argument("--crds")
    p.add_argument("--format", "-f", dest="fmt", default="text", type=str.lower)
    p.add_argument("--select", action="append")
    p.add_argument("--ignore", action="append")
    p.add_argument("--config")
    p.add_argument("--output", "-o", type=Path)
    p.add_argument("--namespace", "-n", default="default")
    p.add_argument("--jobs", "-j", type=int, default=0)
    p.add_argument("--fix", action="store_true")
    p.add_argument("--diff", action="store_true")
    return p


OPTION_STRINGS = frozenset(s for action in parser()._actions for s in action.option_strings)
"""Every option spelling the fast path accepts (compared with the typer command's in the tests)."""


def takes(argv: Sequence[str]) -> bool:
    """Whether ``argv`` (without the program name) is a ``lint`` run this path handles."""
    return bool(argv) and argv[0] == "lint" and "--help" not in argv


def main(argv: Sequence[str]) -> int:
    """Run ``gpufleet lint`` with ``argv`` (the words after ``lint``); the exit code."""
    from gpufleet.cli import lint_run

    args = parser().parse_intermixed_args(list(argv))
    return lint_run.run(
        lint_run.Options(
            paths=args.paths,
            fleet=args.fleet,
            fleet_context=args.fleet_context,
            crds=args.crds,
            fmt=args.fmt,
            select=args.select,
            ignore=args.ignore,
            config=args.config,
            output=args.output,
            namespace=args.namespace,
            jobs=args.jobs,
            fix=args.fix,
            diff=args.diff,
        )
    )
