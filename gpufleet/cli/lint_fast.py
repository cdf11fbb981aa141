"""The one declaration of ``gpufleet lint``'s options, and its start-up fast path (argparse instead of typer).

:data:`OPTIONS` declares every option once: spelling, metavar, default and help. Both front
ends are built from it: :func:`parser` (argparse), which :func:`gpufleet.cli.app.main` takes
for ``gpufleet lint ...`` without ``--help``, and the typer command of
:mod:`gpufleet.cli.lint_cmds` (``gpufleet lint --help`` and the full CLI), whose parameters
:func:`gpufleet.cli.lint_cmds.lint_signature` makes from the same table. typer (0.29)
builds a pydantic adapter for every parameter, and importing typer, pydantic and the other
commands costs about 0.9 s per run; a pre-commit hook pays that on every commit (issue 10),
so this module imports the standard library only. Both hand the parsed values to
:func:`gpufleet.cli.lint_run.run` as one :class:`~gpufleet.cli.lint_run.Options`.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, Sequence

FORMATS = ("text", "json", "sarif")


@dataclass(frozen=True)
class Opt:
    """One option of ``gpufleet lint``: ``dest`` is its :class:`~gpufleet.cli.lint_run.Options` field."""

    dest: str
    flags: tuple[str, ...]
    kind: str
    """``paths`` (the argument), ``text``, ``file`` (a path to write), ``int``, ``flag``, ``codes`` (repeatable), ``format``."""
    help: str
    default: Any = None
    metavar: str | None = None


OPTIONS: tuple[Opt, ...] = (
    Opt("paths", (), "paths", "Files, directories (recursive *.yaml, *.yml, *.json) or - for standard input."),
    Opt(
        "fleet",
        ("--fleet",),
        "text",
        "Fleet model file: enables the fleet-aware rules (GANG104, GANG105, GANG402, GANG403).",
        metavar="FILE",
    ),
    Opt(
        "fleet_context",
        ("--fleet-context",),
        "text",
        "Fleet context JSON (fleet-context.json) instead of a model.",
        metavar="FILE",
    ),
    Opt(
        "crds",
        ("--crds",),
        "text",
        "Directory of CRD YAML files (e.g. kubectl get crd -o yaml) for GANG601 and GANG602, on top of the "
        "schemas gpufleet carries (same group/version/kind: yours win).",
        metavar="DIR",
    ),
    Opt(
        "no_crds",
        ("--no-crds",),
        "flag",
        "Turn the schema rules (GANG601, GANG602) off: no bundled schemas, no --crds.",
        default=False,
    ),
    Opt("fmt", ("--format", "-f"), "format", "text, json or sarif.", default="text"),
    Opt(
        "select",
        ("--select",),
        "codes",
        "Only these rule codes or prefixes (GANG3, GANG401), comma-separated.",
        metavar="CODES",
    ),
    Opt("ignore", ("--ignore",), "codes", "Skip these rule codes or prefixes, comma-separated.", metavar="CODES"),
    Opt(
        "config",
        ("--config",),
        "text",
        "Linter config (YAML: select, ignore, options, fleet, fleetContext, crds).",
        metavar="FILE",
    ),
    Opt(
        "output",
        ("--output", "-o"),
        "file",
        "Write the report to this file instead of standard output.",
        metavar="FILE",
    ),
    Opt(
        "namespace",
        ("--namespace", "-n"),
        "text",
        "Namespace of manifests without metadata.namespace (as kubectl apply -n; default: default).",
        default="default",
    ),
    Opt(
        "jobs",
        ("--jobs", "-j"),
        "int",
        "Processes to share a run of 256 files or more with: 0 one per CPU (default), 1 this process alone, at most 64 (Linux; elsewhere always 1).",
        default=0,
        metavar="N",
    ),
    Opt(
        "fix",
        ("--fix",),
        "flag",
        "Write the admission controller's defaults (queue label, gang scheduler, minAvailable, restart policies...) into the files, keeping comments and order, then report what remains. Needs --fleet or --fleet-context.",
        default=False,
    ),
    Opt(
        "diff",
        ("--diff",),
        "flag",
        "Print those fixes as a unified diff and write nothing (also with --fix); exit 1 when there is a fix to make or a blocking finding would remain.",
        default=False,
    ),
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line, as the typer commands' usage errors (gpufleet.cli.app), not argparse's usage block."""
        from gpufleet.cli.exits import USAGE, CliError

        raise CliError([f"gpufleet lint: {message} (fix: see `gpufleet lint --help`)"], USAGE)


_ARGPARSE: dict[str, dict[str, Any]] = {
    "paths": {"nargs": "+"},
    "text": {},
    "file": {"type": Path},
    "int": {"type": int},
    "flag": {"action": "store_true"},
    "codes": {"action": "append"},
    "format": {"type": str.lower},
}


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="gpufleet lint", add_help=False, allow_abbrev=False)
    for opt in OPTIONS:
        how = _ARGPARSE[opt.kind]
        if opt.kind == "paths":
            p.add_argument(opt.dest, **how)
        elif opt.kind == "flag":
            p.add_argument(*opt.flags, dest=opt.dest, **how)
        else:
            p.add_argument(*opt.flags, dest=opt.dest, default=opt.default, **how)
    return p


OPTION_STRINGS = frozenset(flag for opt in OPTIONS for flag in opt.flags)
"""Every option spelling of ``gpufleet lint`` (besides typer's ``--help``)."""


def takes(argv: Sequence[str]) -> bool:
    """Whether ``argv`` (without the program name) is a ``lint`` run this path handles."""
    return bool(argv) and argv[0] == "lint" and "--help" not in argv


def main(argv: Sequence[str]) -> int:
    """Run ``gpufleet lint`` with ``argv`` (the words after ``lint``); the exit code."""
    from gpufleet.cli import lint_run

    args = parser().parse_intermixed_args(list(argv))
    return lint_run.run(lint_run.Options(**{opt.dest: getattr(args, opt.dest) for opt in OPTIONS}))
