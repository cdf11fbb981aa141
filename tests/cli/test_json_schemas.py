"""Every ``--format json`` of the CLI matches its published schema (docs/schemas/), one convention for all.

Each command runs on the repository's stacks (and, for ``lint`` and ``advise``, the rule
fixtures' manifests) and its output is validated with ``jsonschema`` against
``docs/schemas/<command>.schema.json`` (draft 2020-12). The commands with a ``--format``
that offers json are discovered from the typer app, so a new one fails
:func:`test_every_command_with_json_output_has_a_schema` until it has a schema and cases here.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import jsonschema
import pytest
import typer

from gpufleet.cli import commands
from gpufleet.cli.app import run

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "docs" / "schemas"
STACKS = sorted((ROOT / "stacks").glob("*.fleet.yaml"))
FIXTURES = ROOT / "tests" / "rules" / "fixtures"


def schema(name: str) -> dict:
    document = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(document)
    return document


def json_commands() -> set[str]:
    """``command`` or ``group command`` for every command whose ``--format`` accepts json."""
    commands.register(["--help"])
    found: set[str] = set()

    def walk(command, prefix: str) -> None:
        if hasattr(command, "commands"):  # a group (typer's own click types)
            for name, sub in command.commands.items():
                walk(sub, f"{prefix} {name}".strip())
            return
        for param in command.params:
            if (
                "--format" in getattr(param, "opts", ())
                and "json" in f"{getattr(param, 'help', '')} {getattr(param, 'type', '')}"
            ):
                found.add(prefix)

    walk(typer.main.get_command(commands.app), "")
    return found


def sandbox_dir(tmp_path: Path) -> Path:
    """A sandbox folder whose state file records one process (this test's, running) and one that has exited."""
    folder = tmp_path / "sandbox"
    folder.mkdir()
    process = {"argv": ["kube-apiserver"], "log": str(folder / "logs" / "x.log"), "started": 0}
    (folder / "state.json").write_text(
        json.dumps(
            {
                "model": str(STACKS[0]),
                "kubeconfig": str(folder / "kubeconfig"),
                "ports": {"apiserver": 6443},
                "ready": True,
                "processes": [
                    {**process, "name": "kube-apiserver", "pid": os.getpid()},
                    {**process, "name": "etcd", "pid": 2**22 + 1},
                ],
                "stack": {"gpufleet:kubeconfig": str(folder / "kubeconfig")},
            }
        )
    )
    return folder


def cases(tmp_path: Path) -> dict[str, list[list[str]]]:
    manifests = [str(FIXTURES / code / "disallowed.yaml") for code in ("GANG103", "GANG301", "GANG803")]
    broken = tmp_path / "broken.fleet.yaml"
    broken.write_text(STACKS[0].read_text().replace("kind: Fleet\n", "kind: Fleet\ncolour: blue\n", 1) + "teams: {}\n")
    return {
        "validate": [["validate", str(s), "--format", "json"] for s in [*STACKS, broken]],
        "plan": [["plan", str(s), "--format", "json"] for s in STACKS],
        "lint": [
            ["lint", *manifests, "--format", "json"],
            ["lint", str(FIXTURES / "GANG301" / "allowed.yaml"), "--format", "json"],
        ],
        "diff": [["diff", str(a), str(b), "--format", "json"] for a in STACKS for b in STACKS],
        "advise": [["advise", str(s), str(FIXTURES), "--format", "json"] for s in STACKS],
        "try": [["try", str(STACKS[0]), str(FIXTURES / "GANG301" / "allowed.yaml"), "--dry-run", "--format", "json"]],
        "predict": [
            ["predict", str(FIXTURES), "--format", "json"],
            ["predict", str(FIXTURES / "GANG403" / "disallowed.yaml"), "--fleet", str(STACKS[0]), "--format", "json"],
        ],
        "whatif run": [],  # a replay needs the engines: tests/whatif/test_report.py and the e2e tier validate it
        "sandbox status": [
            ["sandbox", "status", "--dir", str(tmp_path / "none"), "--format", "json"],
            ["sandbox", "status", "--dir", str(sandbox_dir(tmp_path)), "--format", "json"],
        ],
    }


def test_every_command_with_json_output_has_a_schema(tmp_path):
    assert json_commands() == set(cases(tmp_path))
    assert {p.name for p in SCHEMAS.glob("*.schema.json")} == {
        f"{c.replace(' ', '-')}.schema.json" for c in json_commands()
    }


@pytest.mark.parametrize("command", ["validate", "plan", "lint", "diff", "advise", "sandbox status", "try", "predict"])
def test_the_json_of_each_command_matches_its_schema(command, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    validator = jsonschema.Draft202012Validator(schema(command.replace(" ", "-")))
    for argv in cases(tmp_path)[command]:
        code = run(argv)
        out, err = capsys.readouterr()
        assert code in (0, 1) and out, (argv, code, err)
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(json.loads(out))]
        assert not errors, (argv, errors[:5])


def properties(node) -> set[str]:
    """The name of every property declared anywhere in a schema."""
    if isinstance(node, dict):
        own = set(node.get("properties") or {})
        return own.union(*(properties(sub) for sub in node.values()))
    if isinstance(node, list):
        return set().union(*(properties(sub) for sub in node))
    return set()


@pytest.mark.parametrize(
    "name", ["validate", "plan", "lint", "diff", "advise", "sandbox-status", "whatif-run", "predict"]
)
def test_every_key_of_every_schema_is_camel_case(name):
    names = properties(schema(name))
    assert names and all(re.fullmatch(r"[a-z][a-zA-Z0-9]*", key) for key in names), sorted(names)
