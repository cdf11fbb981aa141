"""``gpufleet policy-pack DIR`` and ``gpufleet pulumi-package DIR``: the two folders Pulumi runs gpufleet from.

``policy-pack`` writes the policy pack folder for ``pulumi preview --policy-pack DIR``, through
:func:`gpufleet.util.policyfolder.write` (no Pulumi SDK imported; the pack process imports
``pulumi_policy``, this command does not). ``pulumi-package`` writes the component package
folder a Pulumi program of any language adds with ``pulumi package add DIR``
(``PulumiPlugin.yaml``, runtime python, and a ``__main__.py`` that serves
``gpufleet:index:GpuFleet`` from the installed :mod:`gpufleet.pulumi.package`; nothing of
Pulumi is imported here). Both folders' settings files and their writing are :mod:`gpufleet.util.pluginfolder`'s.
By default each folder names the virtual environment gpufleet runs in, relative to the folder (Pulumi reads it
so), so a ``pip install "gpufleet[pulumi]"`` there is all they need and the folder may be committed. Exit codes
(:mod:`gpufleet.cli.exits`): 0 written, 2 the folder cannot be written (a file by that name, no space).
Registered on the app by ``gpufleet.cli.commands``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer

from gpufleet import __version__
from gpufleet.cli.exits import CliError, guarded
from gpufleet.util.pluginfolder import current_virtualenv, settings_text, write_files
from gpufleet.util.policyfolder import write

PACKAGE_ENTRY = '''"""gpufleet's component package (docs/pulumi.md), written by ``gpufleet pulumi-package``.

Run by the Pulumi CLI's Python language host (``python DIR``) for a program that adds this
folder (``pulumi package add DIR``): serves gpufleet:index:GpuFleet from the installed gpufleet.
Nothing here may print to stdout: the CLI reads the gRPC port from the first stdout line.
"""

from gpufleet.pulumi.package import serve

serve()
'''

PACKAGE_HEADER = """\
# gpufleet's component package (docs/pulumi.md), written by `gpufleet pulumi-package`
# (gpufleet {version}). Pulumi runs it with the Python of the virtual environment below,
# which must have gpufleet[pulumi] installed.
"""


def package_contents(virtualenv: str | None) -> dict[str, str]:
    """File name -> text of the component package folder; ``virtualenv`` as in the policy pack's folder."""
    settings = settings_text(PACKAGE_HEADER.format(version=__version__), {}, virtualenv)
    return {"PulumiPlugin.yaml": settings, "__main__.py": PACKAGE_ENTRY}


def _virtualenv_option(what: str):
    return typer.Option(
        None,
        "--virtualenv",
        help=f"Virtual environment Pulumi runs the {what} with (absolute, or relative to the folder); "
        "default: the one gpufleet runs in, written relative to the folder.",
    )


def _target(command: str, folder: Path, what: str, virtualenv: str | None) -> str | None:
    """Check ``folder`` can take the files; the virtualenv to name: given (as given), or the one gpufleet runs in,
    relative to the folder, so the folder holds no path of this machine and may be committed beside the project."""
    if folder.exists() and not folder.is_dir():
        raise CliError(
            [
                f"gpufleet {command}: {folder} is a file, not a folder "
                f"(fix: name a new folder, or an existing folder the {what}'s files may replace theirs in)"
            ]
        )
    if virtualenv:
        return virtualenv
    current = current_virtualenv()
    return os.path.relpath(current, folder.resolve()) if current else None


def policy_pack(
    folder: Path = typer.Argument(..., help="Folder to write the pack into (created if missing)."),
    virtualenv: Optional[str] = _virtualenv_option("pack"),
) -> None:
    """Write the gang-safety policy pack folder: pulumi preview --policy-pack FOLDER."""
    venv = _target("policy-pack", folder, "pack", virtualenv)
    write(folder, venv)
    typer.echo(
        f"wrote the gpufleet policy pack to {folder} (virtualenv: {venv or 'none: the python3 on PATH'}); "
        f"use it with: pulumi preview --policy-pack {folder}"
    )


def pulumi_package(
    folder: Path = typer.Argument(..., help="Folder to write the component package into (created if missing)."),
    virtualenv: Optional[str] = _virtualenv_option("package"),
) -> None:
    """Write GpuFleet's component package folder, for Pulumi programs in any language: pulumi package add FOLDER."""
    venv = _target("pulumi-package", folder, "package", virtualenv)
    write_files(folder, package_contents(venv))
    typer.echo(
        f"wrote gpufleet's component package (gpufleet:index:GpuFleet) to {folder} "
        f"(virtualenv: {venv or 'none: venv in the folder'}); add it to a Pulumi project with: pulumi package add {folder}"
    )


def register(app: typer.Typer) -> None:
    app.command("policy-pack")(guarded(policy_pack))
    app.command("pulumi-package")(guarded(pulumi_package))
