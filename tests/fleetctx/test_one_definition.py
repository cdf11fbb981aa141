"""The fleet context has one typed definition (issue 36, item 1): the renderer writes through it,
the lenient reader reads every key it declares with the defaults it declares, and its JSON Schema
is generated from it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel, ValidationError

from gpufleet.fleetctx import contextschema
from gpufleet.fleetctx.context import FleetContext
from gpufleet.model.loader import load_model
from gpufleet.render.context import render_context

REPO = Path(__file__).resolve().parents[2]
STACKS = sorted((REPO / "stacks").glob("*.fleet.yaml"))
SCHEMA_FILE = REPO / "docs" / "fleet-context.schema.json"


class Recording(dict):
    """A dict that remembers every key read from it (``get``, ``[]``, ``in``), to see what a reader reads."""

    def __init__(self, data: dict[str, Any], read: set[str], prefix: str = "") -> None:
        super().__init__({k: _wrap(v, read, f"{prefix}{k}.") for k, v in data.items()})
        self._read, self._prefix = read, prefix

    def _note(self, key: object) -> None:
        self._read.add(f"{self._prefix}{key}")

    def get(self, key: str, default: Any = None) -> Any:
        self._note(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        self._note(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self._note(key)
        return super().__contains__(key)


def _wrap(value: Any, read: set[str], prefix: str) -> Any:
    if isinstance(value, dict):
        return Recording(value, read, prefix)
    if isinstance(value, list):
        return [_wrap(v, read, prefix) for v in value]
    return value


def declared_keys(model: type[BaseModel], prefix: str = "") -> set[str]:
    """Every key path the typed definition declares (``pools.allocatable``), nested classes included."""
    out = set()
    for name, info in model.model_fields.items():
        out.add(prefix + name)
        for arg in (info.annotation, *getattr(info.annotation, "__args__", ())):
            inner = getattr(arg, "__args__", (arg,))
            for cls in inner:
                if isinstance(cls, type) and issubclass(cls, BaseModel):
                    out |= declared_keys(cls, f"{prefix}{name}.")
    return out


@pytest.fixture(scope="module", params=[p.name for p in STACKS])
def rendered(request) -> dict[str, Any]:
    return render_context(load_model(REPO / "stacks" / request.param))


# Written for people and other tools, not read by the rules: the informative Kueue timeout.
NOT_READ_BY_THE_RULES = {"waitForPodsReadyTimeoutSeconds"}


def test_the_reader_reads_every_key_the_definition_declares():
    # The mixed stack sets every optional key of the context but a few; the pools and teams of all
    # stacks together set the rest.
    read: set[str] = set()
    for stack in STACKS:
        FleetContext.from_dict(Recording(render_context(load_model(stack)), read))
    assert declared_keys(contextschema.FleetContextDoc) - NOT_READ_BY_THE_RULES - read == set()


def test_the_reader_reads_no_key_the_definition_does_not_declare():
    read: set[str] = set()
    for stack in STACKS:
        FleetContext.from_dict(Recording(render_context(load_model(stack)), read))
    assert read - declared_keys(contextschema.FleetContextDoc) == set()


def test_the_readers_defaults_are_the_definitions(rendered):
    # Drop every key that has a default in the typed definition: the reader must assume those same values.
    defaults = {
        name: info.default
        for name, info in contextschema.FleetContextDoc.model_fields.items()
        if not info.is_required() and info.default is not None and name in rendered
    }
    explicit = {**rendered, **defaults}
    dropped = {k: v for k, v in rendered.items() if k not in defaults}
    assert defaults, "the stack renders no key with a default"
    assert FleetContext.from_dict(dropped) == FleetContext.from_dict(explicit)


def test_every_stack_context_is_written_in_the_definitions_key_order(rendered):
    assert list(rendered) == [k for k in contextschema.FleetContextDoc.model_fields if k in rendered]
    assert rendered["version"] == 1


def test_the_renderer_cannot_write_a_key_the_definition_does_not_declare():
    # extra="ignore" lets old readers load newer contexts; the writer must still declare what it writes.
    with pytest.raises(ValidationError):
        contextschema.write({"fleet": "x", "teams": [], "pools": []})
    written = contextschema.write(
        {
            "fleet": "x",
            "undeclared": 1,
            "teams": [{"name": "a", "namespaces": ["a"]}],
            "pools": [{"name": "p", "system": "kueue", "nodeCount": 1}],
        }
    )
    assert "undeclared" not in written


def test_the_committed_json_schema_is_generated_from_the_definition():
    assert json.loads(SCHEMA_FILE.read_text()) == contextschema.json_schema(), (
        "docs/fleet-context.schema.json is stale: run "
        "`python -m gpufleet.fleetctx.contextschema > docs/fleet-context.schema.json`"
    )


def test_every_stack_context_validates_against_the_json_schema(rendered):
    schema = contextschema.json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(rendered)) == []


def test_the_json_schema_refuses_what_the_strict_reader_refuses(rendered):
    bad = {**rendered, "pools": [{**rendered["pools"][0], "system": "slurm"}]}
    assert contextschema.validate(bad) != []
    assert not jsonschema.Draft202012Validator(contextschema.json_schema()).is_valid(bad)
