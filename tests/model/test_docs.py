"""docs/model.md documents every field of the schema and every validation module."""

from __future__ import annotations

import pkgutil
import re
from pathlib import Path

import pytest

from gpufleet.model import checks
from gpufleet.model.schema import fleet_json_schema

DOC = (Path(__file__).resolve().parents[2] / "docs" / "model.md").read_text(encoding="utf-8")
SCHEMA = fleet_json_schema()
OBJECTS = {"Fleet": SCHEMA, **SCHEMA["$defs"]}


def _section(title: str) -> str:
    match = re.search(rf"^### {re.escape(title)}\b.*?$(.*?)(?=^### |^## |\Z)", DOC, re.S | re.M)
    return match.group(1) if match else ""


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_every_field_of_an_object_has_a_row_in_its_section(name: str) -> None:
    section = _section(name)
    if name == "Engines":  # two keys, described in one sentence
        section = DOC
    missing = [p for p in OBJECTS[name]["properties"] if f"`{p}`" not in section]
    assert missing == [], f"docs/model.md section '### {name}' lacks {missing}"


def test_every_check_module_has_a_rules_section() -> None:
    modules = {m.name for m in pkgutil.iter_modules(checks.__path__)} - {"k8s", "shapes", "choices"}
    missing = [m for m in sorted(modules) if f"`checks/{m}.py`" not in DOC]
    assert missing == []
