"""Fleet model commands: ``validate``, ``render``, ``plan``, ``schema``.

Thin adapter over the core: ``gpufleet.model`` loads and validates, ``gpufleet.render``
renders, ``gpufleet.render.plan`` computes the plan; this module only parses
arguments, prints (rich tables for the plan) and writes files. Exit codes: 0 fine,
1 invalid model, 2 usage error. A bad model prints one ``file: path: message (fix: ...)``
line per issue on stderr, never a traceback. Registered on the app by
``gpufleet.cli.app``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from gpufleet import gcpause
from gpufleet.errors import ModelError
from gpufleet.model import Fleet, load_model
from gpufleet.render import Rendered, render_all
from gpufleet.render.files import OWN_DIRS, OWN_FILE, render_files
from gpufleet.render.plan import Plan, PoolPlan, build_plan, plan_dict

DEFAULT_MODEL = Path("stacks/dev.fleet.yaml")


def _fail(lines: list[str], code: int = 1) -> typer.Exit:
    for line in lines:
        typer.echo(line, err=True)
    return typer.Exit(code)


def _load(model: Path) -> tuple[Fleet, Rendered]:
    """Load, validate and render, or exit 1 with every issue (2 when the file does not exist: a usage error)."""
    if not model.exists():
        raise _fail([f"{model}: no such file: pass the fleet model file, e.g. stacks/prod.fleet.yaml"], 2)
    try:
        fleet = load_model(model)
        return fleet, render_all(fleet)
    except ModelError as exc:
        raise _fail(exc.lines()) from None
    except ValueError as exc:  # names that collide once rendered
        raise _fail([f"{model}: {exc}"]) from None


def validate(model: Path = typer.Argument(..., help="Fleet model file (stacks/<env>.fleet.yaml).")) -> None:
    """Validate a fleet model: schema, references, sums against capacity, engine rules."""
    fleet, _ = _load(model)
    typer.echo(f"{model}: valid ({len(fleet.pools)} pools, {len(fleet.teams)} teams, "
               f"{len(fleet.cohorts)} cohorts, {len(fleet.priority_classes)} priority classes)")


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise _fail([f"{out}: exists and is not a directory (choose a new or empty directory for --out)"], 2)
    if out.is_dir():
        foreign = [p.name for p in out.iterdir() if not (OWN_FILE.match(p.name) or (p.name in OWN_DIRS and p.is_dir()))]
        if foreign:
            raise _fail([f"{out}: holds files gpufleet did not write ({', '.join(sorted(foreign)[:5])}); "
                         "choose a new or empty directory for --out"], 2)


def _write_all(out: Path, files: dict[str, str]) -> None:
    """Write every file into a temporary sibling directory, then swap it in place of ``out``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        for rel, text in files.items():
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        if out.exists():
            out.rename(old)
        try:
            tmp.rename(out)
        except OSError:
            if old.exists():
                old.rename(out)  # put the previous rendering back
            raise
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def render(
    model: Path = typer.Argument(..., help="Fleet model file."),
    out: Path = typer.Option(..., "--out", "-o", help="Directory to write (created, or replaced if gpufleet wrote it)."),
) -> None:
    """Render a fleet model to one kubectl-appliable YAML file per object (plus the engine ConfigMaps)."""
    _check_out(out)
    with gcpause.paused():  # bulk work over acyclic dicts: the collector's passes only cost time (issue 22)
        fleet, rendered = _load(model)
        files = render_files(fleet, rendered)
        try:
            _write_all(out, files)
        except OSError as exc:
            raise _fail([f"{out}: cannot write the rendered files: {exc.strerror or exc}"]) from None
    typer.echo(f"{model}: wrote {len(files)} files to {out}/ (apply with `kubectl apply -f {out}`)")


def _amount(value: object) -> str:
    return "unlimited" if value is None else str(value)


def _pool_table(pool_plan: PoolPlan) -> Table:
    pool = pool_plan.pool
    table = Table(title=f"pool {pool.name} ({pool.system}, {pool_plan.mode}): {pool.node_count} nodes, {pool_plan.capacity} {pool.gpu_resource}",
                  title_justify="left")
    for column in ("team", "cohort", "lifecycle", "nominal", "nominal+borrowing", "lendable", "share"):
        table.add_column(column, justify="left" if column in ("team", "cohort", "lifecycle") else "right")
    for row in pool_plan.rows:
        table.add_row(row.owner, row.cohort or "-", row.lifecycle, str(row.nominal), _amount(row.borrowable),
                      str(row.lendable), f"{row.share}%")
    return table


def _print_plan(console: Console, model: Path, plan: Plan) -> None:
    console.print(f"[bold]{model}[/bold]: valid")
    for pool_plan in plan.pools:
        console.print(_pool_table(pool_plan))
        for warning in pool_plan.warnings:
            console.print(f"  [yellow]warning:[/yellow] {warning}", highlight=False)
    for warning in plan.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
    summary = Table(title="objects to apply", title_justify="left")
    summary.add_column("kind")
    summary.add_column("count", justify="right")
    for kind, count in plan.objects.items():
        summary.add_row(kind, str(count))
    console.print(summary)


def plan(model: Optional[Path] = typer.Argument(None, help=f"Fleet model file (default: {DEFAULT_MODEL})."),
         format: str = typer.Option("table", "--format", help="table (for people) or json (for scripts).")) -> None:
    """Validate and render a fleet model, then print quota per pool, warnings and the objects to apply."""
    if model is None:
        model = DEFAULT_MODEL
        if not model.exists():
            raise _fail([f"no MODEL given and {DEFAULT_MODEL} does not exist in {Path.cwd()}: "
                         "pass the model file, e.g. `gpufleet plan stacks/prod.fleet.yaml`"], 2)
    if format not in ("table", "json"):
        raise _fail([f"--format {format!r} is not known: use table or json"], 2)
    fleet, rendered = _load(model)
    if format == "json":
        typer.echo(json.dumps(plan_dict(build_plan(fleet, rendered)), indent=2))
        return
    console = Console(width=None if sys.stdout.isatty() else 120, highlight=False)
    _print_plan(console, model, build_plan(fleet, rendered))


def schema() -> None:
    """Print the JSON Schema of the fleet model (for editors: yaml-language-server)."""
    try:
        from gpufleet.model.schema import fleet_json_schema
    except ImportError as exc:
        raise _fail([f"the fleet model schema is not available in this build ({exc})"]) from None
    typer.echo(json.dumps(fleet_json_schema(), indent=2))


def register(app: typer.Typer) -> None:
    for command in (validate, render, plan, schema):
        app.command()(command)
