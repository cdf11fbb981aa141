"""``gpufleet diff``: the quota and object changes between two fleet models, each step judged.

Thin adapter over :mod:`gpufleet.diff`: loads both models (the base from a file or from
``git show REF:PATH``), optionally the CRDs (``--crds``, default ``$GPUFLEET_CRDS``),
and prints text (rich tables), JSON or Markdown. Exit codes: 0 every step accepted,
1 a step rejected or blocked or a model invalid, 2 usage error. Registered by
``gpufleet.cli.app``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

import typer
import yaml
from rich.console import Console
from rich.table import Table

from gpufleet.crdschema import CrdSet
from gpufleet.diff import Diff, diff_fleets
from gpufleet.diff.markdown import QUOTA_HEADER, pool_change, STEP_HEADER, quota_cells, step_cells, to_markdown
from gpufleet import yamlio
from gpufleet.errors import Issue, ModelError
from gpufleet.model import Fleet, load_model
from gpufleet.model.checks import capacity
from gpufleet.model.loader import parse_model

FORMATS = ("text", "json", "markdown")


def _fail(lines: list[str], code: int) -> typer.Exit:
    for line in lines:
        typer.echo(line, err=True)
    return typer.Exit(code)


def _git_base(model: Path, ref: str) -> Fleet:
    """The model file as it is at git revision ``ref``."""
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=model.resolve().parent, capture_output=True, text=True, check=True).stdout.strip()
        rel = model.resolve().relative_to(Path(top).resolve()).as_posix()
        text = subprocess.run(["git", "show", f"{ref}:{rel}"], cwd=top, capture_output=True, text=True, check=True).stdout
    except (OSError, ValueError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        raise _fail([f"{model}: cannot read it at git revision {ref!r}: {detail.strip()} "
                     "(fix: pass a revision that has the file, e.g. --git origin/main, or two files)"], 2) from None
    source = f"{ref}:{rel}"
    try:
        data = yamlio.load(text)
    except yaml.YAMLError as exc:
        raise ModelError(source, [Issue("(document)", f"malformed YAML: {getattr(exc, 'problem', None) or exc}", "fix the YAML syntax")]) from None
    return parse_model(data, source)


def _load_after(path: Path, before: Fleet) -> Fleet:
    """The new model; an overfilled pool's error names the edit since ``before`` (``capacity.blame``)."""
    try:
        return load_model(path)
    except ModelError as exc:
        try:
            unchecked = load_model(path, validate=False)
        except ModelError:
            raise exc from None
        raise ModelError(exc.source, capacity.with_history(before, unchecked, exc.issues)) from None


def _crds(path: Optional[Path]) -> CrdSet | None:
    path = path or (Path(os.environ["GPUFLEET_CRDS"]) if os.environ.get("GPUFLEET_CRDS") else None)
    if path is None:
        return None
    if not path.exists():
        raise _fail([f"{path}: no such CRD directory (fix: pass --crds with the directory of the Kueue and Volcano CRDs)"], 2)
    return CrdSet.load(path)


def _table(title: str, header, rows) -> Table:
    table = Table(title=title, title_justify="left")
    for column in header:
        table.add_column(column)
    for cells in rows:
        table.add_row(*cells)
    return table


def _print_text(diff: Diff, title: str) -> None:
    console = Console(width=None if sys.stdout.isatty() else 160, highlight=False)
    console.print(f"[bold]{title}[/bold]")
    if diff.quota:
        console.print(_table("quota", QUOTA_HEADER, map(quota_cells, diff.quota)))
    for moved in diff.namespaces:
        console.print(f"namespace {moved['namespace']}: team {moved['from']} -> {moved['to']}")
    for pool in diff.pools:
        console.print(f"pool {pool['pool']}: {pool_change(pool, '->')}")
    console.print(_table("steps, in `pulumi up` order", STEP_HEADER, map(step_cells, diff.steps)))
    state = "every step accepted" if diff.accepted else f"{diff.rejected} rejected, {diff.blocked} blocked"
    console.print(f"{len(diff.steps)} step(s): {state}" + ("" if diff.crds_checked else " (CRD schemas not checked: --crds DIR)"))


def diff(
    base: Path = typer.Argument(..., help="The base model (or, with --git, the model to compare with its git revision)."),
    new: Optional[Path] = typer.Argument(None, help="The new model (omit with --git)."),
    git: Optional[str] = typer.Option(None, "--git", help="Compare MODEL with itself at this git revision (e.g. origin/main)."),
    output: str = typer.Option("text", "--format", "-f", help="text, json or markdown."),
    crds: Optional[Path] = typer.Option(None, "--crds", help="CRD directory for schema and CEL checks (default: $GPUFLEET_CRDS)."),
) -> None:
    """Show every quota change and the steps `pulumi up` would take, each judged as the API server would judge it."""
    if output not in FORMATS:
        raise _fail([f"--format {output!r}: choose one of {', '.join(FORMATS)}"], 2)
    if (git is None) == (new is None):
        raise _fail(["give two model files (gpufleet diff BASE NEW) or one with --git REF (gpufleet diff MODEL --git origin/main)"], 2)
    missing = [path for path in (base, new) if path is not None and not path.is_file()]
    if missing:
        raise _fail([f"{path}: no such model file (fix: pass the path of a fleet model, e.g. stacks/prod.fleet.yaml)" for path in missing], 2)
    crd_set = _crds(crds)
    try:
        if git is not None:
            before = _git_base(base, git)
            after, title = _load_after(base, before), f"{base} ({git} -> working tree)"
        else:
            before = load_model(base)
            after, title = _load_after(new, before), f"{base} -> {new}"
        result = diff_fleets(before, after, crd_set)
    except ModelError as exc:
        raise _fail(exc.lines() or [f"{exc}"], 1) from None
    except ValueError as exc:
        raise _fail([f"{exc}"], 1) from None
    if output == "json":
        typer.echo(json.dumps(result.to_json(), indent=2))
    elif output == "markdown":
        typer.echo(to_markdown(result, title), nl=False)
    else:
        _print_text(result, title)
    raise typer.Exit(0 if result.accepted else 1)


def register(app: typer.Typer) -> None:
    app.command()(diff)
