"""Golden files: what ``gpufleet render`` writes for each stack, byte for byte.

tests/render/golden/<stack>/ holds the ``render --out`` folder, with the settings of the stack that names the
model (cert-manager and prometheus-operator for prod).
Regenerate after an intended change with
``GPUFLEET_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/render`` and review the diff.
"""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

import pytest

from gpufleet.cli.inputs import stack_settings
from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.stack.folder import folder_files

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
STACKS = sorted(p.name.removesuffix(".fleet.yaml") for p in (ROOT / "stacks").glob("*.fleet.yaml"))


def _read(directory: Path) -> dict[str, str]:
    return {
        p.relative_to(directory).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def _write(directory: Path, files: dict[str, str]) -> None:
    shutil.rmtree(directory, ignore_errors=True)
    for rel, text in files.items():
        (directory / rel).parent.mkdir(parents=True, exist_ok=True)
        (directory / rel).write_text(text, encoding="utf-8")


def _differences(expected: dict[str, str], actual: dict[str, str]) -> list[str]:
    out = [f"missing from the rendering: {name}" for name in sorted(set(expected) - set(actual))]
    out += [f"new in the rendering: {name}" for name in sorted(set(actual) - set(expected))]
    for name in sorted(set(expected) & set(actual)):
        if expected[name] != actual[name]:
            out += difflib.unified_diff(
                expected[name].splitlines(),
                actual[name].splitlines(),
                f"golden/{name}",
                f"rendered/{name}",
                lineterm="",
            )
    return out


def test_there_are_stacks_to_compare():
    assert {"dev", "prod"} <= set(STACKS)


@pytest.mark.parametrize("stack", STACKS)
def test_the_rendered_stack_matches_its_golden_files(stack):
    model = ROOT / "stacks" / f"{stack}.fleet.yaml"
    fleet = load_model(model)
    actual = folder_files(fleet, render_all(fleet), stack_settings(model)[1])
    directory = GOLDEN / stack
    if os.environ.get("GPUFLEET_UPDATE_GOLDEN") == "1":
        _write(directory, actual)
    if not directory.is_dir():
        pytest.fail(f"{directory} is missing: run GPUFLEET_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/render")
    differences = _differences(_read(directory), actual)
    assert not differences, (
        "rendering differs from the golden files (regenerate with GPUFLEET_UPDATE_GOLDEN=1 if intended):\n"
        + "\n".join(differences)
    )
