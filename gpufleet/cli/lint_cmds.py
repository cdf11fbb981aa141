"""Linter commands: ``gpufleet lint``, ``gpufleet rules`` and ``gpufleet explain``.

Registered on the typer app by :mod:`gpufleet.cli.app`. This adapter only parses
options; the work (context, standard input, report) is :mod:`gpufleet.cli.lint_run`'s,
shared with the start-up fast path :mod:`gpufleet.cli.lint_fast`.
Exit codes: 0 no blocking finding, 1 an unwaived error finding (``--diff``: or a fix to make), 2 a usage error
(bad option, unknown rule code, unreadable --fleet/--fleet-context/--crds/--config).
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any, List, Optional

import typer
from rich.markdown import Markdown

from gpufleet.cli import lint_run
from gpufleet.cli.console import prose_console, table, table_console
from gpufleet.cli.exits import USAGE, guarded
from gpufleet.lint.ruledoc import rule_markdown
from gpufleet.rules import registry


class Format(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"


def lint_command(
    paths: List[str] = typer.Argument(
        ..., help="Files, directories (recursive *.yaml, *.yml, *.json) or - for standard input."
    ),
    fleet: Optional[str] = typer.Option(
        None,
        "--fleet",
        metavar="FILE",
        help="Fleet model file: enables the fleet-aware rules (GANG104, GANG105, GANG402, GANG403).",
    ),
    fleet_context: Optional[str] = typer.Option(
        None, "--fleet-context", metavar="FILE", help="Fleet context JSON (fleet-context.json) instead of a model."
    ),
    crds: Optional[str] = typer.Option(
        None, "--crds", metavar="DIR", help="Directory of CRD YAML files: enables GANG601 and GANG602."
    ),
    fmt: Format = typer.Option(Format.text, "--format", "-f", help="text, json or sarif.", case_sensitive=False),
    select: Optional[List[str]] = typer.Option(
        None, "--select", metavar="CODES", help="Only these rule codes or prefixes (GANG3, GANG401), comma-separated."
    ),
    ignore: Optional[List[str]] = typer.Option(
        None, "--ignore", metavar="CODES", help="Skip these rule codes or prefixes, comma-separated."
    ),
    config: Optional[str] = typer.Option(
        None,
        "--config",
        metavar="FILE",
        help="Linter config (YAML: select, ignore, options, fleet, fleetContext, crds).",
    ),
    output: Optional[Path] = typer.Option(
        None, "--output", "-o", metavar="FILE", help="Write the report to this file instead of standard output."
    ),
    namespace: str = typer.Option(
        "default",
        "--namespace",
        "-n",
        help="Namespace of manifests without metadata.namespace (as kubectl apply -n; default: default).",
    ),
    jobs: int = typer.Option(
        0,
        "--jobs",
        "-j",
        metavar="N",
        help="Processes to share a run of 256 files or more with: 0 one per CPU (default), 1 this process alone, at most 64 (Linux; elsewhere always 1).",
    ),
    fix: bool = typer.Option(
        False,
        "--fix",
        help="Write the admission controller's defaults (queue label, gang scheduler, minAvailable, restart policies...) into the files, keeping comments and order, then report what remains. Needs --fleet or --fleet-context.",
    ),
    diff: bool = typer.Option(
        False,
        "--diff",
        help="Print those fixes as a unified diff and write nothing (also with --fix); exit 1 when there is a fix to make or a blocking finding would remain.",
    ),
) -> None:
    """Lint Kubernetes manifests for gang-safety problems."""
    raise typer.Exit(
        lint_run.run(
            lint_run.Options(
                paths=paths,
                fleet=fleet,
                fleet_context=fleet_context,
                crds=crds,
                fmt=fmt.value,
                select=select,
                ignore=ignore,
                config=config,
                output=output,
                namespace=namespace,
                jobs=jobs,
                fix=fix,
                diff=diff,
            )
        )
    )


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
