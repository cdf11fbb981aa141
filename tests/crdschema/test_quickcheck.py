"""The quick pre-check never calls an object valid that jsonschema would refuse (it only saves jsonschema's walk)."""

from __future__ import annotations

import copy
import itertools
from pathlib import Path
from typing import Any, Iterator

import pytest

from gpufleet.crdschema import structural
from gpufleet.crdschema.normalize import normalize
from gpufleet.crdschema.quickcheck import compile_check
from gpufleet.settings import load_crds
from gpufleet.yamlin import yamlio

REPO = Path(__file__).resolve().parents[2]
WRONG = {str: 12345, int: "twelve", float: "x", bool: "yes", list: {"a": 1}, dict: ["a"]}


@pytest.mark.parametrize(
    "schema, value, certain",
    [
        ({"type": "integer"}, 4, True),
        ({"type": "integer"}, 4.0, True),
        ({"type": "integer"}, "four", False),
        ({"type": "integer"}, True, False),
        ({"type": "string", "enum": ["a", "b"]}, "a", True),
        ({"type": "string", "enum": ["a", "b"]}, "c", False),
        ({"type": "string", "pattern": "^[a-z]+$"}, "abc", True),
        ({"type": "string", "pattern": "^[a-z]+$"}, "ABC", False),
        ({"type": "object", "required": ["name"]}, {}, False),
        ({"type": "integer", "minimum": 1}, 0, False),
        ({"type": "integer", "minimum": 1, "exclusiveMinimum": True}, 1, False),
        ({"type": "string", "maxLength": 3}, "abcd", False),
        ({"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}, "1Gi", True),
        ({"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}, [1], False),
        ({"type": "string", "nullable": True}, None, False),  # a null is always asked about
        ({"type": "string", "format": "date-time"}, "2026-01-01T00:00:00Z", False),  # asked about
        ({"oneOf": [{"type": "string"}]}, "a", False),  # not handled: asked about
        (
            {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], "items": {}},
            [{"name": "a"}, {"name": "a"}],
            False,
        ),
        ({"type": "array", "x-kubernetes-list-type": "set", "items": {}}, [1, 2.0], True),
        ({"type": "array", "x-kubernetes-list-type": "set", "items": {}}, [2, 2.0], False),
        ({"type": "object", "additionalProperties": False, "properties": {"a": {}}}, {"b": 1}, False),
        ({"type": "object", "additionalProperties": {"type": "string"}}, {"b": "x"}, True),
    ],
)
def test_the_quick_check_is_certain_only_where_jsonschema_agrees(schema, value, certain):
    assert compile_check(schema)(value) is certain
    if certain:
        assert list(structural.compile_validator(schema).iter_errors(value)) == []


def _objects(paths: list[Path]) -> Iterator[dict[str, Any]]:
    for path in paths:
        for file in sorted(path.rglob("*.yaml")) if path.is_dir() else [path]:
            try:
                docs = yamlio.load_documents(file.read_text(encoding="utf-8"))
            except Exception:  # a fixture that is malformed on purpose (GANG000)
                continue
            for doc in docs:
                if isinstance(doc.value, dict):
                    yield doc.value


def _leaves(value: Any, path: tuple = ()) -> Iterator[tuple]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    if path:
        yield path


def _replaced(obj: Any, path: tuple, new: Any) -> Any:
    out = copy.deepcopy(obj)
    node = out
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = new
    return out


def _variants(obj: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The object, and (for its first 60 fields) the object with that field's value of a wrong type."""
    yield obj
    for path in itertools.islice(_leaves(obj), 60):
        node = obj
        for part in path:
            node = node[part]
        if type(node) in WRONG:
            yield _replaced(obj, path, WRONG[type(node)])


def test_on_the_rule_fixtures_and_their_broken_variants_every_certain_answer_is_right():
    _agree(_objects([REPO / "tests" / "rules" / "fixtures"]))


def test_on_the_upstream_examples_and_their_broken_variants_every_certain_answer_is_right(upstream_dir):
    _agree(_objects([upstream_dir]))


def _agree(objects: Iterator[dict[str, Any]]) -> None:
    crds = load_crds()
    assert crds is not None
    checked, wrong = 0, []
    for obj in objects:
        crd = crds.lookup(obj)
        if crd is None:
            continue
        quick, validator = compile_check(crd.schema), structural.compile_validator(crd.schema)
        for variant in _variants(obj):
            stored, _ = normalize(crd.schema, variant, crd.label)
            if quick(stored):
                checked += 1
                issues, _ = structural.structural_issues(validator, stored, crd.label)
                if issues:
                    wrong.append(f"{crd.label} {obj.get('metadata', {}).get('name')}: {issues[0]}")
    assert checked > 0 and wrong == [], wrong[:5]
