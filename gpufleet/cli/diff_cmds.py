"""``gpufleet diff``: the quota and object changes between two fleet models, each step judged.

Thin adapter over :mod:`gpufleet.diff`: loads both models (the base from a file or from
``git show REF:PATH``), the CRD schemas in force (``gpufleet.settings.load_crds``: the ones
gpufleet carries, with ``--crds`` (default ``$GPUFLEET_CRDS``) on top; ``--no-crds``: none),
and prints text (rich tables), JSON or Markdown. Exit codes (:mod:`gpufleet.cli.exits`):
0 every step accepted, 1 a step rejected or blocked or a model invalid, 2 a usage or I/O
error. With ``--git`` and no MODEL, the model is found as :func:`gpufleet.cli.inputs.model_path`
says. Registered by ``gpufleet.cli.commands``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Optional, cast

import typer
import yaml

from gpufleet.cli import inputs
from gpufleet.cli.console import table, table_console
from gpufleet.cli.exits import CliError, guarded
from gpufleet.crdschema.crdset import CrdSet
from gpufleet.diff import Diff, diff_fleets
from gpufleet.diff.markdown import (
    QUOTA_HEADER,
    STEP_HEADER,
    fix_groups,
    fix_lines,
    pool_change,
    quota_cells,
    step_cells,
    to_markdown,
)
from gpufleet.model import Fleet, load_model
from gpufleet.model.checks import capacity
from gpufleet.model.loader import parse_model, placed
from gpufleet.settings import load_crds
from gpufleet.yamlin import syntax, yamlio
from gpufleet.yamlin.errors import ModelError

FORMATS = ("text", "json", "markdown")


def _git(args: list[str], cwd: Path | str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def _git_base(model: Path, ref: str) -> Fleet:
    """The model file as it is at git revision ``ref``."""
    try:
        top = _git(["rev-parse", "--show-toplevel"], model.resolve().parent).strip()
    except (OSError, subprocess.CalledProcessError):
        raise CliError(
            [
                f"{model}: is not in a git repository, so there is no revision {ref!r} to compare it with "
                "(fix: run it on a model inside a git checkout, or compare two files: gpufleet diff OLD NEW)"
            ]
        ) from None
    rel = model.resolve().relative_to(Path(top).resolve()).as_posix()
    try:
        text = _git(["show", f"{ref}:{rel}"], top)
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = (getattr(exc, "stderr", "") or str(exc)).strip().splitlines()[0]
        raise CliError(
            [
                f"{model}: cannot read it at git revision {ref!r}: {detail} "
                "(fix: pass a revision that has the file, see `git log --oneline -- "
                f"{rel}`, or compare two files: gpufleet diff OLD NEW)"
            ]
        ) from None
    source = f"{ref}:{rel}"
    try:
        data = yamlio.load(text)
    except yaml.YAMLError as exc:
        raise ModelError(source, [syntax.issue(exc, text)]) from None
    try:
        return parse_model(data, source)
    except ModelError as exc:
        raise placed(exc, text) from None  # file:line:column as for a model file (gpufleet.yamlin.marks)


def _load_after(path: Path, before: Fleet) -> Fleet:
    """The new model; an overfilled pool's error names the edit since ``before`` (``capacity.blame``)."""
    try:
        return load_model(path)
    except ModelError as exc:
        try:
            unchecked = load_model(path, validate=False)
        except ModelError:
            raise exc from None
        raise placed(
            ModelError(exc.source, capacity.with_history(before, unchecked, exc.issues)),
            path.read_text(encoding="utf-8"),
        ) from None  # the blamed issues at their line and column too


def _crds(path: Optional[Path], no_crds: bool) -> CrdSet | None:
    if no_crds:
        if path is not None:
            raise CliError(["gpufleet diff: give either --crds DIR or --no-crds, not both"])
        return None
    path = path or (Path(os.environ["GPUFLEET_CRDS"]) if os.environ.get("GPUFLEET_CRDS") else None)
    if path is not None:
        inputs.dir_in(path, "CRD directory", "pass --crds with a directory of CRD YAML files (docs/crds.md)")
    try:
        return cast(CrdSet, load_crds(str(path) if path is not None else None))
    except ModelError as exc:
        raise CliError(exc.lines()) from None


def _print_text(diff: Diff, title: str) -> None:
    console = table_console()
    console.print(f"[bold]{title}[/bold]")
    if diff.quota:
        console.print(table("quota", QUOTA_HEADER, map(quota_cells, diff.quota)))
    for moved in diff.namespaces:
        console.print(f"namespace {moved['namespace']}: team {moved['from']} -> {moved['to']}")
    for pool in diff.pools:
        console.print(f"pool {pool['pool']}: {pool_change(pool, '->')}")
    fixes = fix_groups(diff.steps)
    console.print(table("steps, in `pulumi up` order", STEP_HEADER, (step_cells(s, fixes=fixes) for s in diff.steps)))
    for line in fix_lines(diff.steps):
        console.print(line, markup=False)
    state = "every step accepted" if diff.accepted else f"{diff.rejected} rejected, {diff.blocked} blocked"
    console.print(
        f"{len(diff.steps)} step(s): {state}" + ("" if diff.crds_checked else " (CRD schemas not checked: --no-crds)")
    )


def diff(
    base: Optional[Path] = typer.Argument(
        None,
        help="The base model (or, with --git, the model to compare with its git "
        "revision; default: as for `gpufleet validate`).",
    ),
    new: Optional[Path] = typer.Argument(None, help="The new model (omit with --git)."),
    git: Optional[str] = typer.Option(
        None, "--git", metavar="REF", help="Compare MODEL with itself at this git revision (e.g. origin/main)."
    ),
    output: str = typer.Option("text", "--format", "-f", metavar="text|json|markdown", help="text, json or markdown."),
    crds: Optional[Path] = typer.Option(
        None,
        "--crds",
        metavar="DIR",
        help="CRD directory for schema and CEL checks, on top of the schemas gpufleet carries "
        "(same group/version/kind: yours win; default: $GPUFLEET_CRDS).",
    ),
    no_crds: bool = typer.Option(
        False, "--no-crds", help="Check no CRD schemas (neither the carried ones nor --crds)."
    ),
) -> None:
    """Show every quota change and the steps `pulumi up` would take, each judged as the API server would judge it."""
    if output not in FORMATS:
        raise CliError([f"--format {output!r} is not known (fix: choose one of {', '.join(FORMATS)})"])
    if (git is None) == (new is None) or (git is None and base is None):
        raise CliError(
            [
                "gpufleet diff: needs two models or one with --git (fix: gpufleet diff BASE NEW, or "
                "gpufleet diff MODEL --git origin/main)"
            ]
        )
    base = inputs.model_file(base)
    new = inputs.model_file(new) if new is not None else None
    crd_set = _crds(crds, no_crds)
    try:
        if git is not None:
            before = _git_base(base, git)
            after, title = _load_after(base, before), f"{base} ({git} -> working tree)"
        elif new is not None:
            before = load_model(base)
            after, title = _load_after(new, before), f"{base} -> {new}"
        else:
            raise AssertionError("diff: neither NEW nor --git (refused above)")
        result = diff_fleets(before, after, crd_set, inputs.stack_settings(base)[1])
    except ModelError as exc:
        raise CliError(exc.lines() or [f"{exc}"], 1) from None
    except ValueError as exc:
        raise CliError([f"{exc}"], 1) from None
    if output == "json":
        typer.echo(json.dumps(result.to_json(), indent=2))
    elif output == "markdown":
        typer.echo(to_markdown(result, title), nl=False)
    else:
        _print_text(result, title)
    raise typer.Exit(0 if result.accepted else 1)


def register(app: typer.Typer) -> None:
    app.command()(guarded(diff))
