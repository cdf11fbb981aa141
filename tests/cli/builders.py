"""Helpers for the CLI tests: a command group's typer app, run through typer's CliRunner.

The ``test_*_cli`` modules call ``cli_runner(module)`` once, so each command group is
exercised as ``gpufleet`` registers it, without the rest of the application.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import typer
from click.testing import Result
from typer.testing import CliRunner


def cli_runner(commands: ModuleType) -> Callable[..., Result]:
    """A ``run(*args)`` that invokes the app holding only ``commands.register``'s commands."""
    app = typer.Typer(pretty_exceptions_enable=False)
    commands.register(app)

    def run(*args: str) -> Result:
        return CliRunner().invoke(app, list(args))

    return run
