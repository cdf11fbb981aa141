"""The ``gpufleet`` command (also ``python -m gpufleet``).

Called by users, CI and pre-commit. Each command group lives in its own module and
registers itself on :data:`app`; this module only assembles them. Exit codes: 0 fine,
1 invalid input or blocking findings, 2 usage error. Bad input never prints a traceback.
"""

from __future__ import annotations

import typer

app = typer.Typer(
    name="gpufleet",
    help="Gang-safe GPU fleet scheduling: validate, render and plan fleet models; lint gang workloads.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register() -> None:
    from gpufleet.cli import advise_cmds, diff_cmds, fleet_cmds, lint_cmds

    for module in (fleet_cmds, lint_cmds, diff_cmds, advise_cmds):
        module.register(app)


def main() -> None:
    _register()
    app()
