"""``gpufleet try MODEL JOB.yaml [...]``: what the real engines do with a job, in a sandbox of the model.

Thin adapter over :mod:`gpufleet.sandbox.trial_run` and :mod:`gpufleet.sandbox.trial`:
loads the model and the manifests (:mod:`gpufleet.cli.loading`), reuses the sandbox
running for the model in ``--dir`` or starts one (stopped afterwards unless
``--keep``), submits the manifests through the API server, watches and prints the
outcome (text, or ``--format json``). ``--dry-run`` prints what would be tried (ranks,
timeout, sandbox) without a sandbox. Exit codes: 0 the gang ran whole (with
``--fail-rank``: restarted whole), 1 any other outcome, an invalid model or manifest, or
a rendered object of the model an engine's webhook denies in a sandbox this command
starts (as ``sandbox up`` and ``whatif``), 2 a usage or I/O error, engines not built, a sandbox of another model in ``--dir``, or
a sandbox that did not start. Registered by ``gpufleet.cli.commands``.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from gpufleet.cli import loading
from gpufleet.cli.exits import INVALID, USAGE, guarded
from gpufleet.cli.sandbox_cmds import DIR_HELP, VOLCANO_WITHOUT_HELP, denied_lines
from gpufleet.cli.words import plural

COMMAND = "try"


class Format(str, Enum):
    text = "text"
    json = "json"


def _text(doc: dict) -> None:
    ranks = f"{doc['running']} of {doc['expectedRanks']} ranks Running"
    if doc["outcome"] == "refused":
        typer.echo(f"refused by {doc['refusedBy']}: {doc['message']}")
    elif doc["outcome"] == "notRunnable":
        typer.echo(f"notRunnable: {doc['message']}")
    elif doc["outcome"] == "ranWhole":
        typer.echo(f"ranWhole: {ranks} after {doc['secondsToAllRunning']} s")
    else:
        typer.echo(
            f"{doc['outcome']}: {ranks} ({doc['bound']} bound, {doc['pending']} Pending, "
            f"{doc['gpusHeld']} GPUs held) after {doc['elapsedSeconds']} s"
        )
    if doc["failedPod"]:
        typer.echo(
            f"  failed rank {doc['failRank']}: pod {doc['failedPod']} (all ranks ran after "
            f"{doc['secondsToAllRunning']} s)"
        )
    for reason in doc["reasons"]:
        typer.echo(f"  why: {reason}")
    for note in doc["notes"]:
        typer.echo(f"  note: {note}")
    box = doc["sandbox"]
    typer.echo(f"  objects: {', '.join(doc['objects']) or '-'}")
    typer.echo(
        f"  sandbox: {box['dir']} ({'reused' if box['reused'] else 'started'}"
        f"{', kept' if box.get('kept') else ''}; controller {'on' if box['controller'] else 'off'}); "
        f"timeout {doc['timeoutSeconds']} s"
    )


def try_(
    model: Path = typer.Argument(..., help="The fleet model (e.g. stacks/dev.fleet.yaml)."),
    jobs: List[str] = typer.Argument(..., help="Workload manifests (files or directories), submitted in order."),
    directory: Optional[Path] = typer.Option(None, "--dir", help=DIR_HELP),
    keep: bool = typer.Option(False, "--keep", help="Leave a sandbox this command started running."),
    no_controller: bool = typer.Option(
        False, "--no-controller", help="Without the gang-admission controller: the engines alone are judged."
    ),
    timeout: Optional[int] = typer.Option(
        None, "--timeout", min=1, help="Seconds to wait (default: the pools' startup budget, 30-300)."
    ),
    settle: int = typer.Option(10, "--settle", min=1, help="Stop once the engines changed nothing for this long."),
    fail_rank: Optional[int] = typer.Option(
        None, "--fail-rank", min=0, help="Once every rank runs, fail rank N's pod; report how the gang reacts."
    ),
    namespace: str = typer.Option("default", "--namespace", "-n", help="For manifests without a namespace."),
    node_cap: Optional[int] = typer.Option(
        None, "--node-cap", min=1, help="A sandbox this command starts has at most N fake nodes per pool."
    ),
    volcano_without: Optional[List[str]] = typer.Option(None, "--volcano-without", help=VOLCANO_WITHOUT_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print what would be tried; start nothing."),
    format: Format = typer.Option(Format.text, "--format", help="text or json."),
) -> None:
    """Submit JOBS to a sandbox of MODEL as a user would and report what the real engines did."""
    from gpufleet.sandbox.apply import Denied
    from gpufleet.sandbox.kube import WaitTimeout
    from gpufleet.sandbox.needs import SandboxUnavailable
    from gpufleet.sandbox.procs import StartError
    from gpufleet.sandbox.state import default_dir
    from gpufleet.sandbox.trial import TrialOptions, expected_ranks
    from gpufleet.sandbox.trial_run import Mismatch, TrialBroke, default_timeout, gpu_resources, open_sandbox, run
    from gpufleet.sandbox.up import Options, SandboxRunning

    path, fleet = loading.model(model, COMMAND)
    docs = loading.objects(list(jobs), COMMAND)
    ranks = expected_ranks(docs)
    if not ranks:
        raise loading.fail(
            [
                f"{', '.join(jobs)}: no workload that makes pods (fix: pass a Job, Volcano Job, JobSet, "
                f"Pod or another workload kind)"
            ],
            INVALID,
            COMMAND,
        )
    if fail_rank is not None and fail_rank >= ranks:
        raise loading.fail(
            [f"--fail-rank {fail_rank}: the manifests have {ranks} ranks (fix: pass 0 to {ranks - 1})"], USAGE, COMMAND
        )
    where = (directory or default_dir()).resolve()
    seconds = timeout or default_timeout(fleet, docs, namespace)
    head = {
        "model": str(path),
        "expectedRanks": ranks,
        "timeoutSeconds": seconds,
        "failRank": fail_rank,
        "sandbox": {"dir": str(where), "controller": not no_controller},
    }
    if dry_run:
        typer.echo(
            json.dumps(head, indent=2)
            if format is Format.json
            else f"would try {plural(len(docs), 'object')} ({plural(ranks, 'rank')}) on {path} in {where}, timeout {seconds} s"
        )
        return
    try:
        sandbox = open_sandbox(
            fleet,
            path,
            where,
            Options(controller=not no_controller, node_cap=node_cap, volcano_without=tuple(volcano_without or ())),
        )
    except SandboxUnavailable as exc:
        raise loading.fail([str(exc)], USAGE, COMMAND) from None
    except (SandboxRunning, Mismatch) as exc:
        raise loading.fail([str(exc)], USAGE, COMMAND) from None
    except Denied as exc:
        raise loading.fail(denied_lines(exc, where), INVALID, COMMAND) from None
    except (StartError, WaitTimeout) as exc:
        raise loading.fail([f"{exc} (stopped what had started; logs kept in {where}/logs)"], USAGE, COMMAND) from None
    options = TrialOptions(
        timeout=seconds, settle=settle, fail_rank=fail_rank, namespace=namespace, gpu_resources=gpu_resources(fleet)
    )
    try:
        result = run(sandbox, docs, options, keep, fleet)
    except TrialBroke as exc:
        raise loading.fail([str(exc)], USAGE, COMMAND) from None
    doc = {**head, **result.as_dict()}
    doc["sandbox"].update(reused=not sandbox.started, kept=sandbox.started and keep)
    if format is Format.json:
        typer.echo(json.dumps(doc, indent=2))
    else:
        _text(doc)
    if not result.ok:
        raise typer.Exit(INVALID)


def register(app: typer.Typer) -> None:
    app.command(COMMAND)(guarded(try_))
