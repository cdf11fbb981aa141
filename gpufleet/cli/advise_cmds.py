"""``gpufleet advise [MODEL] [MANIFESTS...]`` and ``gpufleet podgroups MODEL MANIFESTS...``.

``advise``: the recommended gang mechanism per pool, and why. ``podgroups``: the
scheduler-plugins PodGroups the manifests need on coscheduling pools, printed as YAML
(apply them with the jobs).

Thin adapter: loads the model (``gpufleet.model``) and the manifests (``gpufleet.lint``'s
sources and loader), calls the pure ``gpufleet.advise.advise`` and prints its result as
text or ``--format json``. It never writes a file. Exit codes (:mod:`gpufleet.cli.exits`):
0 advice printed, 1 an invalid model or manifest (one ``file: message (fix: ...)`` line
each), 2 a usage or I/O error (a path that does not exist or cannot be read). Without a
MODEL argument ``advise`` finds the model as :func:`gpufleet.cli.inputs.model_path` says.
Registered on the app by ``gpufleet.cli.commands``.
"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from enum import Enum
from pathlib import Path
from typing import Any, List, Mapping, Optional

import typer

from gpufleet.advise import Advice, PoolAdvice
from gpufleet.advise import advise as advise_fleet
from gpufleet.advise.decide import FREE_FRACTION, SMALL_POOL
from gpufleet.advise.podgroups import render_pod_groups
from gpufleet.cli import loading
from gpufleet.cli.exits import USAGE, CliError, guarded
from gpufleet.cli.words import plural
from gpufleet.model import Fleet
from gpufleet.render.files import dump


class Format(str, Enum):
    text = "text"
    json = "json"


def _fail(lines: list[str], code: int = 1, command: str = "advise") -> CliError:
    return loading.fail(lines, code, command)


def _model(model: Optional[Path], command: str = "advise") -> Fleet:
    return loading.model(model, command)[1]


def _objects(paths: list[str], command: str = "advise") -> list[Mapping[str, Any]]:
    return loading.objects(paths, command)


def _decimal(value: str, name: str) -> Decimal:
    try:
        number = Decimal(value)
    except InvalidOperation:
        number = Decimal("NaN")
    if not number.is_finite():
        raise _fail([f"{name} {value!r} is not a finite number (fix: pass a decimal such as {name} 0.5)"], USAGE)
    return number


def _print(advice: Advice) -> None:
    typer.echo(
        f"fleet {advice.fleet}: {plural(len(advice.pools), 'pool')}, {plural(advice.jobs, 'job')} "
        f"({plural(advice.skipped, 'object')} skipped)"
    )
    for p in advice.pools:
        typer.echo(f"\npool {p.pool} (now {p.current}): recommended {p.mechanism}")
        typer.echo(f"  change:  {p.change}")
        typer.echo(f"  reason:  {p.reason}")
        typer.echo(f"  1 contention or fragmentation: {p.contention}")
        typer.echo(f"  2 {_sizes(advice, p)}")
        typer.echo(f"  3 elastic jobs: {', '.join(p.elastic_jobs) or 'none'}")
        typer.echo(f"  4 control plane: {p.control_plane}")


def _sizes(advice: Advice, p: PoolAdvice) -> str:
    """Question 2's line: the largest job against the free block, or that there was no job to weigh."""
    free = f"routine free block {p.free_block_gpus} GPUs"
    if not advice.jobs:
        return f"no jobs given (pass manifests to weigh job sizes); {free}"
    if not p.largest_job_gpus:
        return f"none of the {plural(advice.jobs, 'job')} given asks for GPUs on this pool; {free}"
    return f"largest job {p.largest_job_gpus} GPUs vs {free}"


def advise(
    model: Optional[Path] = typer.Argument(
        None,
        help="Fleet model file (default: $GPUFLEET_MODEL, else the stack's gpufleet:model of the nearest Pulumi.yaml).",
    ),
    manifests: Optional[List[str]] = typer.Argument(
        None, help="Workload manifests (files or directories) whose job sizes to weigh."
    ),
    format: Format = typer.Option(Format.text, "--format", "-f", help="text or json."),
    free_fraction: str = typer.Option(
        str(FREE_FRACTION), metavar="SHARE", help="Share of a busy pool that is routinely free (the contiguous block)."
    ),
    small_pool: str = typer.Option(
        str(SMALL_POOL), metavar="GPUS", help="GPUs up to which one team's pool counts as a small cluster."
    ),
) -> None:
    """Recommend a gang mechanism per pool (the premise's four questions); never changes a file."""
    fraction, small = _decimal(free_fraction, "--free-fraction"), _decimal(small_pool, "--small-pool")
    if not Decimal(0) < fraction <= Decimal(1):
        raise _fail(
            [f"--free-fraction {free_fraction} must be above 0 and at most 1 (fix: pass a share such as 0.5)"], USAGE
        )
    if small < 0:
        raise _fail(
            [f"--small-pool {small_pool} must be 0 or more GPUs (fix: pass a GPU count such as {SMALL_POOL})"], USAGE
        )
    fleet = _model(model)
    result = advise_fleet(fleet, _objects(list(manifests or [])), fraction, small)
    if manifests and not result.jobs:
        namespaces = ", ".join(ns for t in fleet.teams for ns in t.namespaces)
        typer.echo(
            f"gpufleet advise: none of the {plural(result.skipped, 'object')} given is a workload in a team's namespace, so no job "
            f"size was weighed (fix: set metadata.namespace to one of the model's namespaces: {namespaces})",
            err=True,
        )
    if format is Format.json:
        typer.echo(json.dumps(result.to_json(), indent=2))
    else:
        _print(result)


def podgroups(
    model: Path = typer.Argument(..., help="Fleet model file."),
    manifests: List[str] = typer.Argument(..., help="Workload manifests (files or directories)."),
) -> None:
    """Print the coscheduling PodGroups the manifests' gangs need (minMember = every pod, scheduleTimeoutSeconds = the permit wait, engines.coscheduling.permitWait)."""
    groups = render_pod_groups(_model(model, "podgroups"), _objects(list(manifests), "podgroups"))
    typer.echo("---\n".join(dump(g) for g in groups), nl=False)
    if not groups:
        typer.echo("# no multi-pod workload in a coscheduling team's namespace", err=True)


def register(app: typer.Typer) -> None:
    app.command()(guarded(advise))
    app.command()(guarded(podgroups))
