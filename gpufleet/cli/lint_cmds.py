"""Linter commands: ``gpufleet lint``, ``gpufleet rules`` and ``gpufleet explain``.

Registered on the typer app by :mod:`gpufleet.cli.app`. This adapter only parses
options, and ``gpufleet lint``'s are not declared here: its typer parameters are made from
the one option table, :data:`gpufleet.cli.lint_fast.OPTIONS`, which the start-up fast path
parses with argparse. The work (context, standard input, report) is :mod:`gpufleet.cli.lint_run`'s.
Exit codes: 0 no blocking finding, 1 an unwaived error finding (``--diff``: or a fix to make), 2 a usage error
(bad option, unknown rule code, unreadable --fleet/--fleet-context/--crds/--config).
"""

from __future__ import annotations

import inspect
from enum import Enum
from pathlib import Path
from typing import Any, List, Optional

import typer
from rich.markdown import Markdown

from gpufleet.cli import lint_run
from gpufleet.cli.console import prose_console, table, table_console
from gpufleet.cli.exits import USAGE, guarded
from gpufleet.cli.lint_fast import FORMATS, OPTIONS, Opt
from gpufleet.lint.ruledoc import rule_markdown
from gpufleet.rules import registry

Format = Enum("Format", {name: name for name in FORMATS}, type=str)  # type: ignore[misc]  # a str Enum built from the one list of formats
"""The report formats as typer's choice type (text, json, sarif), from :data:`gpufleet.cli.lint_fast.FORMATS`."""

_TYPES: dict[str, Any] = {
    "paths": List[str],
    "text": Optional[str],
    "file": Optional[Path],
    "int": int,
    "flag": bool,
    "codes": Optional[List[str]],
    "format": Format,
}


def _parameter(opt: Opt) -> inspect.Parameter:
    """The typer parameter of one entry of :data:`gpufleet.cli.lint_fast.OPTIONS`."""
    if opt.kind == "paths":
        default: Any = typer.Argument(..., help=opt.help)
    elif opt.kind == "format":
        default = typer.Option(Format(opt.default), *opt.flags, help=opt.help, case_sensitive=False)
    else:
        default = typer.Option(opt.default, *opt.flags, metavar=opt.metavar, help=opt.help)
    return inspect.Parameter(opt.dest, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=_TYPES[opt.kind])


def lint_signature() -> inspect.Signature:
    """``gpufleet lint``'s parameters for typer, made from the one option table (the fast path's parser is too)."""
    return inspect.Signature([_parameter(opt) for opt in OPTIONS], return_annotation=None)


def lint_command(**values: Any) -> None:
    """Lint Kubernetes manifests for gang-safety problems."""
    values["fmt"] = values["fmt"].value
    raise typer.Exit(lint_run.run(lint_run.Options(**values)))


lint_command.__signature__ = lint_signature()  # type: ignore[attr-defined]  # typer reads the parameters from __signature__
lint_command.__annotations__ = {p.name: p.annotation for p in lint_command.__signature__.parameters.values()}  # type: ignore[attr-defined]  # and their types from __annotations__


def rules_command() -> None:
    """List every gang-safety rule: code, name, family, severity, summary."""
    rules = registry.all_rules()
    console = table_console()
    if console.is_terminal:
        console.print(
            table(
                None,
                ("code", "name", "family", "severity", "summary"),
                ((r.code, r.name, r.family, r.severity.value, r.summary) for r in rules),
            )
        )
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


def explain_command(
    code: str = typer.Argument(..., metavar="CODE", help="Rule code (GANG301) or name (liveness-or-readiness-probe)."),
) -> None:
    """Show a rule's documentation: what it checks, why it is unsafe, an example and the preferred form."""
    rule = _find_rule(code)
    if rule is None:
        typer.echo(f"gpufleet explain: unknown rule {code!r}; known codes: {', '.join(registry.REGISTRY)}", err=True)
        raise typer.Exit(USAGE)
    # rich renders the Markdown: styled on a terminal, plain text (no `#`, no backticks) when piped
    prose_console().print(Markdown(rule_markdown(rule, level=1)))


def register(app: typer.Typer) -> None:
    app.command("lint")(guarded(lint_command))
    app.command("rules")(guarded(rules_command))
    app.command("explain")(guarded(explain_command))
