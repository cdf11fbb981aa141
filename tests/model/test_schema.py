"""The JSON Schema of the model file (docs/fleet.schema.json, `gpufleet schema`)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from gpufleet.model.schema import SCHEMA_ID, dumps, fleet_json_schema
from gpufleet.yamlin import yamlio
from tests.model.builders import fleet

REPO = Path(__file__).resolve().parents[2]
STACKS = sorted((REPO / "stacks").glob("*.fleet.yaml"))


def _validator() -> jsonschema.Draft202012Validator:
    schema = fleet_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_docs_fleet_schema_json_is_up_to_date() -> None:
    written = (REPO / "docs" / "fleet.schema.json").read_text(encoding="utf-8")
    assert written == dumps(), (
        "docs/fleet.schema.json is stale: run `python -m gpufleet.model.schema > docs/fleet.schema.json`"
    )


def test_the_schema_names_itself_and_uses_yaml_field_names() -> None:
    schema = fleet_json_schema()
    assert schema["$id"] == SCHEMA_ID and schema["title"].startswith("gpufleet fleet model")
    assert {"apiVersion", "priorityClasses"} <= set(schema["properties"])
    assert "waitForPodsReady" in schema["$defs"]["Admission"]["properties"]


def test_every_field_has_a_description() -> None:
    schema = fleet_json_schema()
    objects = [("Fleet", schema), *schema["$defs"].items()]
    missing = [
        f"{name}.{prop}"
        for name, obj in objects
        for prop, body in obj["properties"].items()
        if not body.get("description")
    ]
    assert missing == []


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.name)
def test_the_stack_models_match_the_schema(path: Path) -> None:
    errors = list(_validator().iter_errors(yamlio.load(path.read_text(encoding="utf-8"))))
    assert errors == []


def test_the_builders_default_fleet_matches_the_schema() -> None:
    assert list(_validator().iter_errors(json.loads(json.dumps(fleet().build())))) == []


@pytest.mark.parametrize(
    "path,value",
    [
        ("teams[0].quotas", {}),  # misspelled field
        ("pools[0].system", "slurm"),
        ("teams[0].name", "Alpha"),
        ("admission.waitForPodsReady.timeout", True),
    ],
)
def test_the_schema_rejects_what_the_loader_rejects(path: str, value: object) -> None:
    assert list(_validator().iter_errors(fleet().set(path, value).build())) != []
