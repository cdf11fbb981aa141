"""Every command's ``--help`` is in the README's words: no Python type, no ``{name}...`` (gpufleet.cli.helptext).

The commands (and the sandbox's sub-commands) are discovered from the typer app, as
tests/cli/test_contract.py discovers them, so a command added later is checked at once.
"""

from __future__ import annotations

import pytest
import typer

from gpufleet.cli import commands
from gpufleet.cli.app import run

LEAKS = ("<bool>", "<list[", "str>", "<path>", "<int>")


def command_lines() -> list[tuple[str, ...]]:
    """Every command line that has a ``--help``: the app, each command, each group's sub-commands."""
    commands.register(["--help"])
    lines: list[tuple[str, ...]] = [()]

    def walk(command, words: tuple[str, ...]) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            lines.append((*words, name))
            walk(sub, (*words, name))

    walk(typer.main.get_command(commands.app), ())
    return lines


def help_text(words: tuple[str, ...], capsys) -> str:
    assert run([*words, "--help"]) == 0
    out = capsys.readouterr().out
    assert "Usage: gpufleet" in out
    return out


@pytest.mark.parametrize("words", command_lines(), ids=lambda w: " ".join(w) or "gpufleet")
def test_help_names_no_python_type(words, capsys):
    out = help_text(words, capsys)
    assert not [leak for leak in LEAKS if leak in out], out
    usage = next(line for line in out.splitlines() if "Usage:" in line)
    assert "{" not in usage and "}..." not in usage, usage


@pytest.mark.parametrize(
    "words, shown",
    [
        (("lint",), ("PATHS...", "--fleet  ", "FILE", "--crds", "DIR", "CODES", "text|json|sarif")),
        (("render",), ("[MODEL]", "DIR")),
        (("diff",), ("[BASE] [NEW]", "REF", "text|json|markdown")),
        (("podgroups",), ("MODEL MANIFESTS...",)),
        (("explain",), ("CODE",)),
        (("predict",), ("MANIFESTS...", "MODEL", "text|json")),
    ],
)
def test_help_uses_the_readme_words(words, shown, capsys):
    out = help_text(words, capsys)
    assert all(word in out for word in shown), out


def test_podgroups_help_names_the_permit_wait_not_the_pools_budget(capsys):
    out = " ".join(help_text(("podgroups",), capsys).split())
    assert "permit wait" in out and "budget" not in out
