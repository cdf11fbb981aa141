"""The typer application of every ``gpufleet`` command.

Called by :func:`gpufleet.cli.app.main` for every command line the lint fast path does
not take. Each command group lives in its own module and registers itself on
:data:`app`; :func:`register` imports only the module of the command named on the
command line (help, ``--version`` and unknown commands register every group), so
``gpufleet validate`` does not import the diff or the advisor. Registering is idempotent:
a group already on the app is not added again, so ``main()`` may run many times in one
process (each group's commands once).
"""

from __future__ import annotations

import importlib
from typing import Sequence

import typer

from gpufleet import __version__
from gpufleet.cli.helptext import ReadmeGroup

app = typer.Typer(
    name="gpufleet",
    help="Gang-safe GPU fleet scheduling: validate, render and plan fleet models; lint gang workloads.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=ReadmeGroup,  # --help in the README's words (gpufleet.cli.helptext)
)

# command name -> module that registers it (every command of gpufleet.cli.*_cmds)
COMMANDS = {
    "lint": "lint_cmds",
    "rules": "lint_cmds",
    "explain": "lint_cmds",
    "validate": "fleet_cmds",
    "render": "fleet_cmds",
    "plan": "fleet_cmds",
    "schema": "fleet_cmds",
    "diff": "diff_cmds",
    "advise": "advise_cmds",
    "podgroups": "advise_cmds",
    "sandbox": "sandbox_cmds",
    "try": "try_cmds",
    "policy-pack": "pack_cmds",
    "pulumi-package": "pack_cmds",
    "whatif": "whatif_cmds",
    "predict": "predict_cmds",
}
GROUPS = (
    "fleet_cmds",
    "lint_cmds",
    "diff_cmds",
    "advise_cmds",
    "sandbox_cmds",
    "try_cmds",
    "pack_cmds",
    "whatif_cmds",
    "predict_cmds",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gpufleet {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Gang-safe GPU fleet scheduling: validate, render and plan fleet models; lint gang workloads."""


def modules(argv: Sequence[str]) -> tuple[str, ...]:
    """The command modules to import for ``argv`` (the first non-option word names the command)."""
    words = [a for a in argv if not a.startswith("-")]
    wanted = COMMANDS.get(words[0]) if words else None
    return (wanted,) if wanted else GROUPS


_registered: set[str] = set()  # the groups already on :data:`app`


def register(argv: Sequence[str]) -> typer.Typer:
    """:data:`app` with the command groups ``argv`` needs (each group added once per process)."""
    for name in dict.fromkeys(modules(argv)):
        if name not in _registered:
            importlib.import_module(f"gpufleet.cli.{name}").register(app)
            _registered.add(name)
    return app
