"""``gpufleet sandbox build|up|status|down``: a local control plane with the real engines.

Thin adapter over :mod:`gpufleet.sandbox`: ``build`` runs ``sandbox/engines/build.sh``
(the engines from their Go modules, cached outside the clone); ``up MODEL`` starts the
sandbox for a fleet model (or reuses the one running in ``--dir``) and prints the
kubeconfig path (and, on standard error, the ``export KUBECONFIG=...`` line); ``status``
prints what runs (``--format json`` for scripts); ``down`` stops every process by its PID
and removes the folder. Exit codes: 0 fine, 1 an invalid model, a process that did not
start (its log's tail is printed) or a rendered object an engine's webhook denies (as
``try`` and ``whatif``), 2 a usage error or engines not built (the message names the
build command). Registered by ``gpufleet.cli.commands``.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from gpufleet.cli import inputs
from gpufleet.cli.exits import INVALID, USAGE, CliError, guarded
from gpufleet.yamlin.errors import ModelError

sandbox = typer.Typer(
    name="sandbox",
    no_args_is_help=True,
    add_completion=False,
    help="A local control plane with the real Kueue and Volcano (host processes on 127.0.0.1).",
)

DIR_HELP = "The sandbox's folder (default: $GPUFLEET_SANDBOX_DIR or ~/.local/state/gpufleet/sandbox)."
VOLCANO_WITHOUT_HELP = (
    "A Volcano admission path not to run in a sandbox this command starts (e.g. /queues/validate), "
    "where the sandbox's Volcano v1.14.1 refuses what v1.15.1 takes."
)


def denied_lines(exc, directory: Path) -> list[str]:
    """A webhook's denial of a rendered object (``gpufleet.sandbox.apply.Denied``), as ``up``, ``try`` and
    ``whatif`` print it: the object, the webhook's message and the fix, then what was stopped."""
    return [
        f"the sandbox's engines refused a rendered object: {exc}",
        f"(stopped what had started; logs kept in {directory}/logs)",
    ]


class Format(str, Enum):
    text = "text"
    json = "json"


def _fail(lines: list[str] | str, code: int) -> CliError:
    return CliError([f"gpufleet sandbox: {line}" for line in ([lines] if isinstance(lines, str) else lines)], code)


def _dir(directory: Optional[Path]) -> Path:
    from gpufleet.sandbox.state import default_dir

    return (directory or default_dir()).resolve()


def build(
    engines: Optional[List[str]] = typer.Argument(
        None, help="Engines to build (default: all but the opt-in ones, e.g. pulumi-yaml, built when named)."
    ),
) -> None:
    """Build the engines from their Go modules into the cache (a second run builds nothing)."""
    from gpufleet.sandbox.engines import BUILD, cache_dir
    from gpufleet.sandbox.needs import GO, disk_line

    done = subprocess.run(["bash", str(BUILD), *(engines or [])], check=False)
    if done.returncode != 0:
        raise _fail(
            f"{BUILD} exited {done.returncode} (fix: read its output above; {GO} and the Go module proxy are "
            f"needed; {disk_line(cache_dir())})",
            USAGE,
        )


def up(
    model: Optional[Path] = typer.Argument(
        None, help="The fleet model (e.g. stacks/dev.fleet.yaml; the CLI's model rule when omitted)."
    ),
    directory: Optional[Path] = typer.Option(None, "--dir", metavar="DIR", help=DIR_HELP),
    pods_ready_timeout: Optional[str] = typer.Option(
        None,
        "--pods-ready-timeout",
        metavar="DURATION",
        help="Override Kueue's waitForPodsReady.timeout (e.g. 30s), to see evictions fast.",
    ),
    no_controller: bool = typer.Option(False, "--no-controller", help="Do not start the gang-admission controller."),
    engines_only: bool = typer.Option(
        False,
        "--engines-only",
        help="Start the engines and the controller's backend only; `pulumi up` applies the rest "
        "(prints the stack config to set).",
    ),
    volcano_without: Optional[List[str]] = typer.Option(None, "--volcano-without", help=VOLCANO_WITHOUT_HELP),
) -> None:
    """Start the sandbox for MODEL (or reuse the one running) and print its kubeconfig path."""
    from gpufleet.model import load_model
    from gpufleet.sandbox.apply import Denied
    from gpufleet.sandbox.kube import WaitTimeout
    from gpufleet.sandbox.needs import SandboxUnavailable
    from gpufleet.sandbox.procs import StartError
    from gpufleet.sandbox.up import Options, SandboxRunning
    from gpufleet.sandbox.up import up as start

    try:
        path = inputs.model_file(model)
    except CliError as exc:
        raise _fail(exc.lines, exc.code) from None
    try:
        fleet = load_model(path)
    except ModelError as exc:
        raise _fail(exc.lines(), INVALID) from None
    try:
        options = Options(
            pods_ready_timeout,
            not no_controller,
            engines_only=engines_only,
            volcano_without=tuple(volcano_without or ()),
        )
        state = start(fleet, str(path), _dir(directory), options)
    except SandboxUnavailable as exc:
        raise _fail(str(exc), USAGE) from None
    except SandboxRunning as exc:
        raise _fail(str(exc), INVALID) from None
    except Denied as exc:
        raise _fail(denied_lines(exc, _dir(directory)), INVALID) from None
    except (StartError, WaitTimeout) as exc:
        raise _fail(f"{exc}\n(stopped what had started; logs kept in {_dir(directory)}/logs)", INVALID) from None
    typer.echo(state.kubeconfig)
    typer.echo(f"to use it: export KUBECONFIG={shlex.quote(state.kubeconfig)}", err=True)
    for key, value in state.stack.items():  # --engines-only: point a Pulumi stack at this sandbox
        typer.echo(f"pulumi config set {key} {value}", err=True)


def status(
    directory: Optional[Path] = typer.Option(None, "--dir", metavar="DIR", help=DIR_HELP),
    format: Format = typer.Option(Format.text, "--format", help="text or json."),
) -> None:
    """What runs in the sandbox: its kubeconfig and each process with its PID and state."""
    from gpufleet.sandbox.state import load

    state = load(_dir(directory))
    doc = (
        state.status()
        if state
        else {"state": "absent", "dir": str(_dir(directory)), "kubeconfig": None, "processes": []}
    )
    if format is Format.json:
        typer.echo(json.dumps(doc, indent=2))
    else:
        typer.echo(f"sandbox {doc['state']}: {doc['dir']}")
        if doc["kubeconfig"]:
            typer.echo(f"kubeconfig: {doc['kubeconfig']}")
        for p in doc["processes"]:
            typer.echo(f"  {p['name']:<26} pid {p['pid']:<8} {p['state']}")
    if doc["state"] not in ("running", "absent"):
        raise typer.Exit(INVALID)


def down(
    directory: Optional[Path] = typer.Option(None, "--dir", metavar="DIR", help=DIR_HELP),
    keep: bool = typer.Option(False, "--keep", help="Keep the folder (logs, etcd data)."),
) -> None:
    """Stop every sandbox process by its PID and remove the folder."""
    from gpufleet.sandbox.state import down as stop
    from gpufleet.sandbox.state import load

    state = load(_dir(directory))
    if state is None:
        typer.echo(f"no sandbox in {_dir(directory)}")
        return
    stopped = stop(state, keep=keep)
    typer.echo(f"stopped {len(stopped)} process{'es' if len(stopped) != 1 else ''}: {', '.join(stopped) or '-'}")


for _name, _command in (("build", build), ("up", up), ("status", status), ("down", down)):
    sandbox.command(_name)(guarded(_command))


def register(app: typer.Typer) -> None:
    app.add_typer(sandbox)
