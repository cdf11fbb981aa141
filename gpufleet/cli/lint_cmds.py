"""Linter commands: ``gpufleet lint``, ``gpufleet rules`` and ``gpufleet explain``.

Registered on the typer app by :mod:`gpufleet.cli.app`. This adapter only parses
options, reads standard input, builds the CheckContext (gpufleet.lint.context) and
prints a gpufleet.lint report; colour (rich) only when writing to a terminal.
Exit codes: 0 no blocking finding, 1 an unwaived error finding, 2 a usage error
(bad option, unknown rule code, unreadable --fleet/--fleet-context/--crds/--config).
"""

from __future__ import annotations

import re
import sys
from enum import Enum
from pathlib import Path
from typing import Any, List, Optional

import typer
from rich.console import Console
from rich.markdown import Markdown
from rich.table import Table

from gpufleet.errors import ModelError
from gpufleet.lint import jsonout, sarif, text
from gpufleet.lint.context import LintConfig, fleet_context_from_model, load_config, load_crds, load_fleet_context
from gpufleet.lint.ruledoc import rule_markdown
from gpufleet.lint.runner import Report, lint, unknown_codes
from gpufleet.rules import registry
from gpufleet.rules.api import CheckContext

USAGE = 2
DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
STYLES = {"error": "bold red", "warning": "yellow", "waived": "dim", "detail": "", "summary": "bold"}


class Format(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"


def _fail(lines: list[str]) -> typer.Exit:
    for line in lines:
        typer.echo(f"gpufleet lint: {line}", err=True)
    return typer.Exit(USAGE)


def _codes(values: Optional[List[str]]) -> list[str] | None:
    if not values:
        return None
    return [code.strip().upper() for value in values for code in value.split(",") if code.strip()]


def _context(config: LintConfig, fleet: str | None, fleet_context: str | None, crds: str | None) -> CheckContext:
    fleet, fleet_context, crds = fleet or config.fleet, fleet_context or config.fleet_context, crds or config.crds
    if fleet and fleet_context:
        raise _fail(["give either --fleet or --fleet-context, not both"])
    try:
        ctx_fleet = fleet_context_from_model(fleet) if fleet else load_fleet_context(fleet_context) if fleet_context else None
        ctx_crds = load_crds(crds) if crds else None
    except ModelError as exc:
        raise _fail(exc.lines()) from None
    return CheckContext(fleet=ctx_fleet, options=config.options, crds=ctx_crds)


def _print_text(report: Report) -> None:
    console = Console(highlight=False, soft_wrap=True)
    if not console.is_terminal:
        typer.echo(text.render_plain(report), nl=False)
        return
    for style, line in text.render(report):
        console.print(line, style=STYLES.get(style) or None, markup=False)


def _emit(rendered: str, output: Path | None) -> None:
    if output is None:
        typer.echo(rendered, nl=False)
    else:
        output.write_text(rendered, encoding="utf-8")


def lint_command(
    paths: List[str] = typer.Argument(..., help="Files, directories (recursive *.yaml, *.yml, *.json) or - for standard input."),
    fleet: Optional[str] = typer.Option(None, "--fleet", help="Fleet model file: enables the fleet-aware rules (GANG104, GANG105, GANG402, GANG403)."),
    fleet_context: Optional[str] = typer.Option(None, "--fleet-context", help="Fleet context JSON (fleet-context.json) instead of a model."),
    crds: Optional[str] = typer.Option(None, "--crds", help="Directory of CRD YAML files: enables GANG601 and GANG602."),
    fmt: Format = typer.Option(Format.text, "--format", "-f", help="Output format.", case_sensitive=False),
    select: Optional[List[str]] = typer.Option(None, "--select", help="Only these rule codes or prefixes (GANG3, GANG401), comma-separated."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="Skip these rule codes or prefixes, comma-separated."),
    config: Optional[str] = typer.Option(None, "--config", help="Linter config (YAML: select, ignore, options, fleet, fleetContext, crds)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report to this file instead of standard output."),
    namespace: str = typer.Option("default", "--namespace", "-n", help="Namespace of manifests without metadata.namespace (as kubectl apply -n; default: default)."),
) -> None:
    """Lint Kubernetes manifests for gang-safety problems."""
    try:
        settings = load_config(config) if config else LintConfig()
    except ModelError as exc:
        raise _fail(exc.lines()) from None
    chosen = _codes(select) or (list(settings.select) if settings.select is not None else None)
    skipped = (_codes(ignore) or []) + list(settings.ignore)
    unknown = unknown_codes([*(chosen or []), *skipped])
    if unknown:
        raise _fail([f"unknown rule code(s) {', '.join(unknown)}: see `gpufleet rules`"])
    if not DNS_LABEL.fullmatch(namespace):
        raise _fail([f"--namespace {namespace!r} is not a namespace name: use lowercase letters, digits and '-' (at most 63)"])
    ctx = _context(settings, fleet, fleet_context, crds)
    stdin_text = sys.stdin.read() if "-" in paths else None
    report = lint(paths, ctx, chosen, skipped, stdin_text=stdin_text, namespace=namespace)
    if fmt is Format.text and output is None:
        _print_text(report)
    else:
        rendered = (sarif.render(report, Path.cwd()) if fmt is Format.sarif
                    else jsonout.render(report) if fmt is Format.json else text.render_plain(report))
        _emit(rendered, output)
    raise typer.Exit(report.exit_code)


def rules_command() -> None:
    """List every gang-safety rule: code, name, family, severity, summary."""
    rules = registry.all_rules()
    console = Console(highlight=False)
    if console.is_terminal:
        table = Table("code", "name", "family", "severity", "summary", show_lines=False)
        for rule in rules:
            table.add_row(rule.code, rule.name, rule.family, rule.severity.value, rule.summary)
        console.print(table)
        return
    width = max(len(r.name) for r in rules)
    for rule in rules:
        typer.echo(f"{rule.code}  {rule.name:<{width}}  {rule.family:<9}  {rule.severity.value:<7}  {rule.summary}")


def _find_rule(code: str) -> Any:
    wanted = code.strip()
    for rule in registry.all_rules():
        if wanted.upper() == rule.code or wanted.lower() == rule.name:
            return rule
    return None


def explain_command(code: str = typer.Argument(..., help="Rule code (GANG301) or name (liveness-or-readiness-probe).")) -> None:
    """Show a rule's documentation: what it checks, why it is unsafe, an example and the preferred form."""
    rule = _find_rule(code)
    if rule is None:
        typer.echo(f"gpufleet explain: unknown rule {code!r}; known codes: {', '.join(registry.REGISTRY)}", err=True)
        raise typer.Exit(USAGE)
    markdown = rule_markdown(rule, level=1)
    console = Console(highlight=False)
    if console.is_terminal:
        console.print(Markdown(markdown))
    else:
        typer.echo(markdown, nl=False)


def register(app: typer.Typer) -> None:
    app.command("lint")(lint_command)
    app.command("rules")(rules_command)
    app.command("explain")(explain_command)
