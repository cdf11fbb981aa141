"""Linter commands: lint, rules, explain. (Owned by the rule-engine work.)"""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    pass
