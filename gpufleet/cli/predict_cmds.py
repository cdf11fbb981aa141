"""``gpufleet predict``: what the controllers will do with each workload, and which gang invariants it holds.

Registered by :mod:`gpufleet.cli.commands`. This adapter only parses options; the work is
:func:`gpufleet.lint.predict.predict` (files read as ``gpufleet lint`` reads them, the fleet from
``--fleet`` as lint builds it) and the output :mod:`gpufleet.lint.predicttext` /
:mod:`gpufleet.lint.predictout` (``--format json``, ``docs/schemas/predict.schema.json``).
Exit codes, as lint's: 0 every input read, 1 an input that is not an object (its GANG000 problem on
standard error, one line each), 2 a usage or I/O error (a path that does not exist or cannot be
read, a bad ``--fleet``).
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from gpufleet.cli import lint_run
from gpufleet.cli.exits import CliError, guarded

FORMATS = ("text", "json")
Format = Enum("Format", {name: name for name in FORMATS}, type=str)  # type: ignore[misc]  # a str Enum of the formats
TEXT = Format("text")


def predict_command(
    paths: List[str] = typer.Argument(..., metavar="MANIFESTS...", help="Manifest files or directories, - for stdin."),
    fleet: Optional[Path] = typer.Option(None, "--fleet", metavar="MODEL", help="Fleet model: pools, teams, queues."),
    fleet_context: Optional[Path] = typer.Option(
        None,
        "--fleet-context",
        metavar="FILE",
        help="fleet-context.json written by `gpufleet render` (instead of --fleet).",
    ),
    fmt: Format = typer.Option(TEXT, "--format", case_sensitive=False, help="text or json."),
    namespace: str = typer.Option("default", "--namespace", metavar="NAME", help="Namespace of objects without one."),
) -> None:
    """Show what the controllers will do with each workload: pod sets, groups, admission, failure path, invariants."""
    from gpufleet.lint import predictout, predicttext
    from gpufleet.lint.predict import predict

    lint_run.check_paths(paths)
    ctx = lint_run.fleet_context(str(fleet) if fleet else None, str(fleet_context) if fleet_context else None)
    stdin_text = sys.stdin.read() if "-" in paths else None
    report = predict(paths, ctx, stdin_text, namespace)
    if report.unreadable:
        raise CliError([f"{name}: {why} (fix: check its permissions)" for name, why in report.unreadable])
    sys.stdout.write(predictout.render_json(report) if fmt.value == "json" else predicttext.render(report))
    for problem in report.problems:
        f = problem.finding
        print(f"{f.file}:{f.line or 1}: GANG000 {f.message} (fix: {f.fix})", file=sys.stderr)
    raise typer.Exit(report.exit_code)


def register(app: typer.Typer) -> None:
    app.command("predict")(guarded(predict_command))
