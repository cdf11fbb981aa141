"""``gpufleet policy-pack DIR``: write the policy pack folder for ``pulumi preview --policy-pack DIR``.

Thin adapter over :func:`gpufleet.policypack.folder.write` (standard library only; the
pack process imports ``pulumi_policy``, this command does not). By default the folder's
``PulumiPolicy.yaml`` names the virtual environment gpufleet runs in, so a
``pip install "gpufleet[pulumi]"`` there is all the pack needs. Exit codes
(:mod:`gpufleet.cli.exits`): 0 written, 2 the folder cannot be written (a file by that name, no space).
Registered on the app by ``gpufleet.cli.commands``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from gpufleet.cli.exits import CliError, guarded
from gpufleet.policypack.folder import current_virtualenv, write


def policy_pack(
    folder: Path = typer.Argument(..., help="Folder to write the pack into (created if missing)."),
    virtualenv: Optional[str] = typer.Option(
        None, "--virtualenv",
        help="Virtual environment Pulumi runs the pack with (absolute, or relative to the folder); "
             "default: the one gpufleet runs in."),
) -> None:
    """Write the gang-safety policy pack folder: pulumi preview --policy-pack FOLDER."""
    if folder.exists() and not folder.is_dir():
        raise CliError([f"gpufleet policy-pack: {folder} is a file, not a folder "
                        "(fix: name a new folder, or an existing folder the pack's files may replace theirs in)"])
    venv = virtualenv or current_virtualenv()
    write(folder, venv)
    typer.echo(f"wrote the gpufleet policy pack to {folder} (virtualenv: {venv or 'none: the python3 on PATH'}); "
               f"use it with: pulumi preview --policy-pack {folder}")


def register(app: typer.Typer) -> None:
    app.command("policy-pack")(guarded(policy_pack))
