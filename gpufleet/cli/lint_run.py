"""The ``gpufleet lint`` command's work, without the command-line framework.

Called by both front ends of the command: the typer command (:mod:`gpufleet.cli.lint_cmds`,
used for ``--help`` and by the full CLI) and the start-up fast path
(:mod:`gpufleet.cli.lint_fast`, which ``gpufleet lint ...`` takes so a pre-commit hook
does not pay for typer's and pydantic's imports). :func:`run` takes already-parsed
options and returns the exit code: 0 no blocking finding, 1 an unwaived error finding,
2 a usage error (printed to standard error as ``gpufleet lint: ...``). rich is imported
only when writing text to a terminal.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from gpufleet.errors import ModelError
from gpufleet.lint.context import LintConfig, load_config
from gpufleet.lint.runner import Report, lint, unknown_codes
from gpufleet.rules.api import CheckContext
from gpufleet.settings import load_settings

USAGE = 2
FORMATS = ("text", "json", "sarif")
DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
STYLES = {"error": "bold red", "warning": "yellow", "waived": "dim", "detail": "", "summary": "bold"}


class UsageError(Exception):
    """A bad option or an unreadable input: exit 2 with these lines."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("; ".join(lines))
        self.lines = lines


@dataclass(frozen=True)
class Options:
    paths: Sequence[str]
    fleet: str | None = None
    fleet_context: str | None = None
    crds: str | None = None
    fmt: str = "text"
    select: Sequence[str] | None = None
    ignore: Sequence[str] | None = None
    config: str | None = None
    output: Path | None = None
    namespace: str = "default"


def codes(values: Sequence[str] | None) -> list[str] | None:
    if not values:
        return None
    return [code.strip().upper() for value in values for code in value.split(",") if code.strip()]


def _context(config: LintConfig, opts: Options) -> CheckContext:
    fleet, fleet_context = opts.fleet or config.fleet, opts.fleet_context or config.fleet_context
    crds = opts.crds or config.crds
    if fleet and fleet_context:
        raise UsageError(["give either --fleet or --fleet-context, not both"])
    try:
        settings = load_settings(model=fleet, context=fleet_context, crds=crds, options=config.options,
                                 options_source=opts.config or "options")
    except ModelError as exc:
        raise UsageError(exc.lines()) from None
    return settings.context()


def _check_usage(opts: Options) -> None:
    if opts.fmt not in FORMATS:
        raise UsageError([f"--format {opts.fmt!r} is not one of {', '.join(FORMATS)}"])
    if not DNS_LABEL.fullmatch(opts.namespace):
        raise UsageError([f"--namespace {opts.namespace!r} is not a namespace name: use lowercase letters, digits "
                          "and '-' (at most 63)"])
    missing = [p for p in opts.paths if p != "-" and not Path(p).exists()]
    if missing:
        raise UsageError([f"{p}: no such file or directory" for p in missing])


def _print_text(report: Report) -> None:
    from gpufleet.lint import text

    if not sys.stdout.isatty():
        sys.stdout.write(text.render_plain(report))
        return
    from rich.console import Console

    console = Console(highlight=False, soft_wrap=True)
    for style, line in text.render(report):
        console.print(line, style=STYLES.get(style) or None, markup=False)


def _render(report: Report, fmt: str) -> str:
    if fmt == "sarif":
        from gpufleet.lint import sarif

        return sarif.render(report, Path.cwd())
    if fmt == "json":
        from gpufleet.lint import jsonout

        return jsonout.render(report)
    from gpufleet.lint import text

    return text.render_plain(report)


def _lint(opts: Options) -> int:
    _check_usage(opts)
    try:
        settings = load_config(opts.config) if opts.config else LintConfig()
    except ModelError as exc:
        raise UsageError(exc.lines()) from None
    chosen = codes(opts.select) or (list(settings.select) if settings.select is not None else None)
    skipped = (codes(opts.ignore) or []) + list(settings.ignore)
    unknown = unknown_codes([*(chosen or []), *skipped])
    if unknown:
        raise UsageError([f"unknown rule code(s) {', '.join(unknown)}: see `gpufleet rules`"])
    ctx = _context(settings, opts)
    stdin_text = sys.stdin.read() if "-" in opts.paths else None
    report = lint(opts.paths, ctx, chosen, skipped, stdin_text=stdin_text, namespace=opts.namespace)
    if opts.fmt == "text" and opts.output is None:
        _print_text(report)
    elif opts.output is None:
        sys.stdout.write(_render(report, opts.fmt))
    else:
        opts.output.write_text(_render(report, opts.fmt), encoding="utf-8")
    return report.exit_code


def run(opts: Options) -> int:
    """Lint as ``opts`` say; the exit code (usage errors are printed to standard error)."""
    try:
        return _lint(opts)
    except UsageError as exc:
        for line in exc.lines:
            print(f"gpufleet lint: {line}", file=sys.stderr)
        return USAGE
