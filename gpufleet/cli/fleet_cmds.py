"""Fleet model commands: ``validate``, ``render``, ``plan``, ``schema``.

Thin adapter over the core: ``gpufleet.model`` loads and validates, ``gpufleet.render``
renders, ``gpufleet.render.plan`` computes the plan; this module only parses
arguments, prints (rich tables for the plan; ``render --out -`` and the apply hint: :mod:`gpufleet.cli.render_out`) and writes files. Exit codes
(:mod:`gpufleet.cli.exits`): 0 fine, 1 invalid model, 2 usage or I/O error. A bad model
prints one ``file: path: message (fix: ...)`` line per issue on stderr, never a
traceback. Without a MODEL argument the model is found as :func:`gpufleet.cli.inputs.model_path`
says. Registered on the app by ``gpufleet.cli.commands``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from gpufleet.cli import render_out, render_tls, validate_out
from gpufleet.cli.console import table, table_console
from gpufleet.cli.exits import USAGE, CliError, guarded
from gpufleet.cli.inputs import model_file, stack_settings
from gpufleet.cli.words import plural
from gpufleet.model import Fleet, load_model
from gpufleet.render import Rendered, render_all
from gpufleet.render.plan import Plan, PoolPlan, build_plan, plan_dict
from gpufleet.stack.controller import controller_manifests
from gpufleet.stack.folder import folder_files, is_own
from gpufleet.util import gcpause
from gpufleet.yamlin.errors import ModelError

MODEL_HELP = "Fleet model file (default: $GPUFLEET_MODEL, else the stack's gpufleet:model of the nearest Pulumi.yaml)."


def _load(given: Optional[Path]) -> tuple[Path, Fleet, Rendered]:
    """The model's path, the model and its rendering; exit 1 with every issue, 2 when the file cannot be read."""
    model = model_file(given)
    try:
        fleet = load_model(model)
        return model, fleet, render_all(fleet)
    except ModelError as exc:
        raise CliError(exc.lines(), 1) from None
    except ValueError as exc:  # names that collide once rendered
        raise CliError([f"{model}: {exc}"], 1) from None


VALIDATE_FORMATS = ("text", "json", "sarif")


def validate(
    model: Optional[Path] = typer.Argument(None, help=MODEL_HELP),
    format: str = typer.Option(
        "text",
        "--format",
        "-f",
        metavar="text|json|sarif",
        help="text, json (for scripts) or sarif (code scanning); every issue at its line and column.",
    ),
) -> None:
    """Validate a fleet model: schema, references, sums against capacity, engine rules."""
    if format not in VALIDATE_FORMATS:
        raise CliError([f"--format {format!r} is not known (fix: use one of {', '.join(VALIDATE_FORMATS)})"])
    if format != "text":
        path = model_file(model)
        fleet, issues = validate_out.check(path)
        typer.echo(
            validate_out.to_json(path, fleet, issues) if format == "json" else validate_out.to_sarif(path, issues),
            nl=False,
        )
        raise typer.Exit(1 if issues else 0)
    model, fleet, _ = _load(model)
    counts = ", ".join(
        plural(n, word)
        for n, word in (
            (len(fleet.pools), "pool"),
            (len(fleet.teams), "team"),
            (len(fleet.cohorts), "cohort"),
            (len(fleet.priority_classes), "priority class"),
        )
    )
    typer.echo(f"{model}: valid ({counts})")


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise CliError([f"{out}: exists and is not a directory (fix: choose a new or empty directory for --out)"])
    if out.is_dir():
        foreign = [p.name for p in out.iterdir() if not is_own(p.name, p.is_dir())]
        if foreign:
            raise CliError(
                [
                    f"{out}: holds files gpufleet did not write ({', '.join(sorted(foreign)[:5])}) "
                    "(fix: choose a new or empty directory for --out)"
                ]
            )


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
    model: Optional[Path] = typer.Argument(None, help=MODEL_HELP),
    out: Optional[Path] = typer.Option(
        None,
        "--out",
        "-o",
        metavar="DIR|-",
        help="Directory to write (created, or replaced if gpufleet wrote it), "
        "or - for one YAML stream on standard output.",
    ),
    include_private_key: bool = typer.Option(
        False,
        "--include-private-key",
        help="Make a CA and the controller's serving certificate here and write them, private key included, "
        "as the Secret the controller serves with (for a throwaway cluster; never commit it).",
    ),
) -> None:
    """Render a fleet model: everything `pulumi up` creates, in stage folders for `kubectl apply -k` or GitOps."""
    if out is None:
        raise CliError(
            [
                "gpufleet render: no --out given (fix: --out DIR writes one file per object, "
                "--out - one YAML stream to standard output)"
            ]
        )
    to_stdout = str(out) == render_out.STDOUT
    if not to_stdout:
        _check_out(out)
    with gcpause.paused():  # bulk work over acyclic dicts: the collector's passes only cost time (issue 22)
        model, fleet, rendered = _load(model)
        settings = stack_settings(model)[1]
        tls = None
        if include_private_key:
            if settings.cert_manager or not fleet.controller.enabled:
                why = "the stack uses cert-manager" if settings.cert_manager else "the controller is disabled"
                raise CliError([f"{model}: --include-private-key: {why}, no key to make (fix: leave the flag out)"])
            tls, bundle = render_tls.serving_tls(fleet)
            settings = replace(settings, ca_bundle=bundle)
        files = folder_files(fleet, rendered, settings, tls)
        if to_stdout:
            typer.echo(render_out.stream(files), nl=False)
            return
        try:
            _write_all(out, files)
        except OSError as exc:
            raise CliError(
                [
                    f"{out}: cannot write the rendered files: {exc.strerror or exc} "
                    "(fix: check the folder's permissions and free space; nothing was changed)"
                ],
                USAGE,
            ) from None
    typer.echo(f"{model}: wrote {len(files)} files to {out}/")
    for line in render_out.apply_hint(fleet, settings, tls is not None, out):
        typer.echo(line)


def _amount(value: object) -> str:
    return "unlimited" if value is None else str(value)


def _pool_table(pool_plan: PoolPlan):
    pool = pool_plan.pool
    return table(
        f"pool {pool.name} ({pool.system}, {pool_plan.mode}): {pool.node_count} nodes, {pool_plan.capacity} {pool.gpu_resource}",
        ("team", "cohort", "lifecycle", "nominal", "nominal+borrowing", "lendable", "share"),
        (
            (
                row.owner,
                row.cohort or "-",
                row.lifecycle,
                str(row.nominal),
                _amount(row.borrowable),
                str(row.lendable),
                f"{row.share}%",
            )
            for row in pool_plan.rows
        ),
        right=("nominal", "nominal+borrowing", "lendable", "share"),
    )


def _stack_line(stack: dict) -> str:
    switches = ", ".join(
        f"{key} {str(stack[key]).lower()}" for key in ("prometheusOperator", "certManager", "enginesInstalled")
    )
    if stack["name"] is None:
        return f"stack: no Pulumi stack names this model; objects counted with the stack defaults ({switches})"
    return f"stack: {stack['name']} ({stack['file']}): {switches}"


def _print_plan(console: Console, model: Path, plan: Plan, stack: dict) -> None:
    console.print(f"[bold]{model}[/bold]: valid")
    console.print(_stack_line(stack), markup=False)
    for pool_plan in plan.pools:
        console.print(_pool_table(pool_plan))
        for warning in pool_plan.warnings:
            console.print(f"  [yellow]warning:[/yellow] {warning}", highlight=False)
    for warning in plan.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
    console.print(
        table(
            "objects to apply",
            ("kind", "count"),
            ((kind, str(count)) for kind, count in plan.objects.items()),
            right=("count",),
        )
    )


def plan(
    model: Optional[Path] = typer.Argument(None, help=MODEL_HELP),
    format: str = typer.Option(
        "table", "--format", metavar="table|json", help="table (for people) or json (for scripts)."
    ),
) -> None:
    """Validate and render a fleet model, then print quota per pool, warnings and the objects to apply."""
    if format not in ("table", "json"):
        raise CliError([f"--format {format!r} is not known (fix: use table or json)"])
    model, fleet, rendered = _load(model)
    stack, settings = stack_settings(model)
    the_plan = build_plan(fleet, rendered, controller_manifests(fleet, settings, rendered.context), settings)
    if format == "json":
        typer.echo(json.dumps({**plan_dict(the_plan), "stack": stack}, indent=2))
        return
    _print_plan(table_console(), model, the_plan, stack)


def schema() -> None:
    """Print the JSON Schema of the fleet model (for editors: yaml-language-server)."""
    try:
        from gpufleet.model.schema import fleet_json_schema
    except ImportError as exc:
        raise CliError([f"the fleet model schema is not available in this build ({exc})"], 1) from None
    typer.echo(json.dumps(fleet_json_schema(), indent=2))


def register(app: typer.Typer) -> None:
    for command in (validate, render, plan, schema):
        app.command()(guarded(command))
