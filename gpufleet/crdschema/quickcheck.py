"""A quick yes-or-ask pre-check of an object against a CRD version's structural schema.

Called by :mod:`gpufleet.crdschema.crdset` before ``structural.structural_issues``:
``jsonschema`` costs about 5 µs per schema node it descends into (2 ms for a Volcano Job
with its pod templates), and almost every object passes. :func:`compile_check` turns a
schema into nested closures that answer True only when the object certainly has no
schema issue; False means "ask jsonschema", which then finds the issues and their paths.

It handles the keywords the engines' CRDs use (``type``, ``properties``,
``additionalProperties``, ``items``, ``required``, ``enum`` of strings, bounds, lengths,
``pattern``, ``x-kubernetes-int-or-string``, ``x-kubernetes-list-type`` ``set`` and
``map``, ``allOf`` and ``anyOf``) the way ``gpufleet.crdschema.structural`` does, ignores
annotations and the keywords checked elsewhere (CEL rules, pruning), and answers False
for anything else it meets in the object: a null, a ``date-time`` string, ``oneOf``,
``not``, ``patternProperties`` and any keyword not listed here. Being wrong in the
"no issue" direction would hide a finding, so every doubt goes to jsonschema
(tests/crdschema/test_quickcheck.py checks the two agree on every real object).
"""

from __future__ import annotations

import re
from typing import Any, Callable

Check = Callable[[Any], bool]

_IGNORED = frozenset(
    {
        "description",
        "default",
        "example",
        "title",
        "nullable",  # a null is always asked about
        "x-kubernetes-preserve-unknown-fields",  # pruning is normalize's
        "x-kubernetes-embedded-resource",
        "x-kubernetes-map-type",
        "x-kubernetes-validations",  # CEL is cel's
        "x-kubernetes-list-map-keys",
        "x-kubernetes-int-or-string",
        "type",
        "format",
        "x-kubernetes-list-type",
    }
)
_HANDLED = frozenset(
    {
        "allOf",
        "anyOf",
        "properties",
        "additionalProperties",
        "items",
        "required",
        "enum",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "pattern",
    }
)


def _never(_: Any) -> bool:
    return False


def _always(_: Any) -> bool:
    return True


def _is_integer(value: Any) -> bool:
    return not isinstance(value, bool) and (isinstance(value, int) or (isinstance(value, float) and value.is_integer()))


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float))


_TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": _is_integer,
    "number": _is_number,
}


def compile_check(schema: Any) -> Check:
    """A function of an instance: True when it certainly meets ``schema``, False to ask jsonschema."""
    if schema is True or schema == {}:
        return _always
    if not isinstance(schema, dict) or not set(schema) <= _IGNORED | _HANDLED:
        return _never
    checks: list[Check] = []
    kind = schema.get("type")
    if kind is not None:
        if not isinstance(kind, str) or kind not in _TYPES:
            return _never
        checks.append(_TYPES[kind])
    if schema.get("x-kubernetes-int-or-string"):
        checks.append(lambda v: _is_integer(v) or isinstance(v, str))
    if schema.get("format") == "date-time":
        checks.append(lambda v: not isinstance(v, str))
    if schema.get("x-kubernetes-list-type") in ("set", "map"):
        checks.append(_unique(schema))
    for key, combine in (("allOf", all), ("anyOf", any)):
        if key in schema:
            if not isinstance(schema[key], list):
                return _never
            checks.append(_combined([compile_check(sub) for sub in schema[key]], combine))
    checks += _scalar_checks(schema)
    object_check = _object_check(schema)
    if object_check is not None:
        checks.append(object_check)
    if "items" in schema:
        item = compile_check(schema["items"]) if isinstance(schema["items"], dict) else _never
        checks.append(lambda v: not isinstance(v, list) or all(item(x) for x in v))

    def check(value: Any) -> bool:
        if value is None:
            return False
        for one in checks:
            if not one(value):
                return False
        return True

    return check


def _combined(subs: list[Check], combine: Callable[[Any], bool]) -> Check:
    return lambda v: combine(sub(v) for sub in subs)


def _scalar_checks(schema: dict[str, Any]) -> list[Check]:
    out: list[Check] = []
    enum = schema.get("enum")
    if enum is not None:
        if not isinstance(enum, list) or not all(isinstance(e, str) for e in enum):
            return [_never]
        allowed = frozenset(enum)
        out.append(lambda v: isinstance(v, str) and v in allowed)
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None:
        strict = bool(schema.get("exclusiveMinimum"))
        out.append(lambda v: not _is_number(v) or (v > low if strict else v >= low))
    if high is not None:
        strict_high = bool(schema.get("exclusiveMaximum"))
        out.append(lambda v: not _is_number(v) or (v < high if strict_high else v <= high))
    for key, sized, at_least in (
        ("minLength", str, True),
        ("maxLength", str, False),
        ("minItems", list, True),
        ("maxItems", list, False),
        ("minProperties", dict, True),
        ("maxProperties", dict, False),
    ):
        bound = schema.get(key)
        if bound is not None:
            out.append(_size(sized, bound, at_least))
    pattern = schema.get("pattern")
    if pattern is not None:
        try:
            search = re.compile(pattern).search
        except (re.error, TypeError):
            return [_never]
        out.append(lambda v: not isinstance(v, str) or search(v) is not None)
    return out


def _size(sized: type, bound: int, at_least: bool) -> Check:
    if at_least:
        return lambda v: not isinstance(v, sized) or len(v) >= bound  # type: ignore[arg-type]  # sized: str, list or dict
    return lambda v: not isinstance(v, sized) or len(v) <= bound  # type: ignore[arg-type]


def hashable(value: Any) -> Any:
    """``value`` as a hashable key that compares as the API server compares list items (16.0 == 16)."""
    if isinstance(value, dict):
        return tuple(sorted((k, hashable(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(hashable(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _unique(schema: dict[str, Any]) -> Check:
    """No two items of a ``set`` list equal, nor two of a ``map`` list with the same keys (structural's rule)."""
    keys = schema.get("x-kubernetes-list-map-keys") or []
    is_map = schema.get("x-kubernetes-list-type") == "map"

    def check(value: Any) -> bool:
        if not isinstance(value, list):
            return True
        if is_map:
            idents = [tuple(hashable(i.get(k)) for k in keys) for i in value if isinstance(i, dict)]
        else:
            idents = [hashable(i) for i in value]
        try:
            return len(set(idents)) == len(idents)
        except TypeError:
            return False

    return check


def _object_check(schema: dict[str, Any]) -> Check | None:
    if not any(k in schema for k in ("properties", "additionalProperties", "required")):
        return None
    properties = {name: compile_check(sub) for name, sub in (schema.get("properties") or {}).items()}
    extra = schema.get("additionalProperties", True)
    other = _always if extra is True else _never if extra is False else compile_check(extra)
    required = tuple(schema.get("required") or ())

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        for name in required:
            if name not in value:
                return False
        for name, item in value.items():
            if not properties.get(name, other)(item):
                return False
        return True

    return check
