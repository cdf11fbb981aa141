"""The ``gpufleet lint`` command's work, without the command-line framework.

Called by both front ends of the command: the typer command (:mod:`gpufleet.cli.lint_cmds`,
used for ``--help`` and by the full CLI) and the start-up fast path
(:mod:`gpufleet.cli.lint_fast`, which ``gpufleet lint ...`` takes so a pre-commit hook
does not pay for typer's and pydantic's imports). :func:`run` takes already-parsed
options and returns the exit code (:mod:`gpufleet.cli.exits`): 0 no blocking finding,
1 an unwaived error finding (malformed YAML is GANG000; with ``--diff`` also a fix to make), 2 a usage or I/O error: a path
that does not exist or cannot be read, a bad --fleet/--fleet-context/--config/--crds, a
report that cannot be written (printed to standard error as ``gpufleet lint: ...``, one
line each). rich is imported only when writing text to a terminal.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from gpufleet.cli import inputs
from gpufleet.cli.exits import CliError, handle
from gpufleet.cli.lint_fast import FORMATS
from gpufleet.kubetypes.vocab import is_dns_label
from gpufleet.lint.context import LintConfig, load_config
from gpufleet.lint.pool import MAX_JOBS
from gpufleet.lint.runner import Report, lint, lint_sources, unknown_codes
from gpufleet.rules.api import CheckContext
from gpufleet.settings import load_settings
from gpufleet.util import lifetime
from gpufleet.yamlin.errors import ModelError

STYLES = {"error": "bold red", "warning": "yellow", "waived": "dim", "detail": "", "summary": "bold"}


UsageError = CliError  # a bad option or an unreadable input: exit 2 with these lines


@dataclass(frozen=True)
class Options:
    paths: Sequence[str]
    fleet: str | None = None
    fleet_context: str | None = None
    crds: str | None = None
    no_crds: bool = False  # the schema rules off (no bundled schemas, no --crds)
    fmt: str = "text"
    select: Sequence[str] | None = None
    ignore: Sequence[str] | None = None
    config: str | None = None
    output: Path | None = None
    namespace: str = "default"
    jobs: int = 0  # processes to share a large run with: 0 one per CPU, 1 this process alone (gpufleet.lint.pool)
    fix: bool = False  # write the admission controller's defaults into the files (gpufleet.cli.lint_fix)
    diff: bool = False  # print them as a unified diff, write nothing


def codes(values: Sequence[str] | None) -> list[str] | None:
    if not values:
        return None
    return [code.strip().upper() for value in values for code in value.split(",") if code.strip()]


def _context(config: LintConfig, opts: Options) -> CheckContext:
    fleet, fleet_context = opts.fleet or config.fleet, opts.fleet_context or config.fleet_context
    no_crds = opts.no_crds or (config.no_crds and not opts.crds)
    crds = None if no_crds else opts.crds or config.crds
    if fleet and fleet_context:
        raise UsageError(["give either --fleet or --fleet-context, not both"])
    if opts.no_crds and opts.crds:
        raise UsageError(["give either --crds DIR or --no-crds, not both"])
    if fleet:
        inputs.file_in(fleet, "fleet model file", "pass the fleet model with --fleet, e.g. stacks/prod.fleet.yaml")
    if fleet_context:
        inputs.file_in(fleet_context, "fleet context file", "pass fleet-context.json (written by `gpufleet render`)")
    if crds:
        inputs.dir_in(crds, "CRD directory", "pass the directory of the engines' CRD YAML files (docs/crds.md)")
    try:
        settings = load_settings(
            model=fleet,
            context=fleet_context,
            crds=crds,
            bundled_crds=not no_crds,
            options=config.options,
            options_source=opts.config or "options",
        )
    except ModelError as exc:
        raise UsageError(exc.lines()) from None
    return settings.context()


def fleet_context(fleet: str | None, context_file: str | None = None) -> CheckContext:
    """The check context of ``--fleet``/``--fleet-context`` as lint builds it (``gpufleet predict`` shares it)."""
    return _context(LintConfig(), Options(paths=(), fleet=fleet, fleet_context=context_file))


def check_paths(paths: Sequence[str]) -> None:
    """Every manifest path exists and can be read (``-`` is standard input), as lint checks them."""
    for path in paths:
        if path != "-":
            inputs.any_in(path, "pass manifest files or directories, or - for standard input")


def _check_usage(opts: Options) -> None:
    if opts.fmt not in FORMATS:
        raise UsageError([f"--format {opts.fmt!r} is not one of {', '.join(FORMATS)}"])
    if not is_dns_label(opts.namespace):
        raise UsageError(
            [
                f"--namespace {opts.namespace!r} is not a namespace name: use lowercase letters, digits "
                "and '-' (at most 63)"
            ]
        )
    if not 0 <= opts.jobs <= MAX_JOBS:
        raise UsageError(
            [
                f"--jobs {opts.jobs} is not a number of processes: use 0 (one per CPU, the default), "
                f"1 (one process) or up to {MAX_JOBS}"
            ]
        )
    check_paths(opts.paths)
    if opts.config:
        inputs.file_in(opts.config, "linter config file", "pass the linter config YAML, e.g. --config lint.yaml")


def _print_text(report: Report) -> None:
    from gpufleet.lint import text

    if not sys.stdout.isatty():
        sys.stdout.write(text.render_plain(report))
        return
    from gpufleet.cli.console import table_console

    console = table_console(soft_wrap=True)
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
    if opts.fix or opts.diff:
        from gpufleet.cli import lint_fix

        lint_fix.check(opts.paths, ctx.fleet)
        if opts.diff:
            return lint_fix.run_diff(
                opts.paths,
                ctx,
                opts.namespace,
                lambda sources: lint_sources(sources, ctx, chosen, skipped, opts.namespace),
                lambda text: _emit(text, opts.output),
            )
        lint_fix.run_fix(opts.paths, ctx, opts.namespace)
    stdin_text = sys.stdin.read() if "-" in opts.paths else None
    report = lint(opts.paths, ctx, chosen, skipped, stdin_text, namespace=opts.namespace, jobs=opts.jobs)
    if report.unreadable:  # nothing written: the report of a partial read is dropped
        raise UsageError([f"{name}: {why} (fix: check its permissions)" for name, why in report.unreadable])
    if opts.fmt == "text" and opts.output is None:
        _print_text(report)
    elif opts.output is None and opts.fmt == "json":
        from gpufleet.lint import jsonout

        sys.stdout.writelines(jsonout.chunks(report))  # a large report is never one string
    elif opts.output is None:
        sys.stdout.write(_render(report, opts.fmt))
    else:
        inputs.write_file(opts.output, _render(report, opts.fmt))
    lifetime.keep(report)  # its findings are not freed one by one when the process ends next
    return report.exit_code


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
    else:
        inputs.write_file(output, text)


def run(opts: Options) -> int:
    """Lint as ``opts`` say; the exit code (usage errors are printed to standard error)."""
    try:
        return _lint(opts)
    except (CliError, OSError) as exc:
        return handle(exc, "gpufleet lint: ")
