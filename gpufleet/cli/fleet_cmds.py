"""Fleet model commands: validate, render, plan, schema. (Owned by the fleet-model work.)"""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    pass
