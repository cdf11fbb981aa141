"""The Kubernetes structural-schema dialect on top of ``jsonschema``.

Called by :mod:`gpufleet.crdschema.crdset`, once per CRD version (the validator is
cached there). A CRD's ``openAPIV3Schema`` is OpenAPI 3.0, i.e. JSON Schema draft 4
plus Kubernetes keywords; this module extends ``Draft4Validator`` instead of
rewriting the schema:

- ``type: integer`` accepts a float with an integral value (Pulumi sends ``16.0``);
- ``nullable: true`` lets ``null`` through the ``type`` check;
- ``x-kubernetes-int-or-string`` allows exactly an integer or a string;
- ``x-kubernetes-list-type: set`` and ``map`` (with ``x-kubernetes-list-map-keys``) reject duplicates;
- ``format``: only ``date-time`` is asserted, other formats (int32, int64, ...) are annotations.

Errors become :class:`gpufleet.yamlin.errors.Issue` objects with the exact path.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterator

import jsonschema.validators
from jsonschema import Draft4Validator, FormatChecker, ValidationError

from gpufleet.crdschema.quickcheck import hashable
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.yamlin.errors import Issue


def _is_integer(_checker: Any, instance: Any) -> bool:
    if isinstance(instance, bool):
        return False
    return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())


def _type(validator: Any, types: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    if instance is None and schema.get("nullable"):
        return
    wanted = types if isinstance(types, list) else [types]
    if not any(validator.is_type(instance, t) for t in wanted):
        yield ValidationError(f"must be of type {' or '.join(wanted)}, got {_type_name(instance)}", validator="type")


def _int_or_string(validator: Any, enabled: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    if not enabled or (instance is None and schema.get("nullable")):
        return
    if not (validator.is_type(instance, "integer") or isinstance(instance, str)):
        yield ValidationError(f"must be an integer or a string, got {_type_name(instance)}", validator="type")


def _list_type(validator: Any, list_type: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    if not isinstance(instance, list) or list_type not in ("set", "map"):
        return
    keys = schema.get("x-kubernetes-list-map-keys") or []
    seen: dict[Any, int] = {}
    for index, item in enumerate(instance):
        if list_type == "map":
            if not isinstance(item, dict):
                continue
            ident = tuple(hashable(item.get(k)) for k in keys)
            shown = ", ".join(f"{k}={item.get(k)!r}" for k in keys)
        else:
            ident, shown = hashable(item), repr(item)
        if ident in seen:
            yield ValidationError(
                f"duplicate entry ({shown}; first at [{seen[ident]}])", validator="x-kubernetes-list-type", path=[index]
            )
        else:
            seen[ident] = index


def _type_name(value: Any) -> str:
    names = {
        bool: "boolean",
        int: "integer",
        float: "number",
        str: "string",
        list: "array",
        dict: "object",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)


_FORMATS = FormatChecker(formats=())


@_FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    datetime.fromisoformat(value.replace("z", "Z").replace("Z", "+00:00"))
    return "T" in value.upper()


KubernetesValidator = jsonschema.validators.extend(
    Draft4Validator,
    validators={"type": _type, "x-kubernetes-int-or-string": _int_or_string, "x-kubernetes-list-type": _list_type},
    type_checker=Draft4Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)


def compile_validator(schema: dict[str, Any]) -> Any:
    """A reusable validator for one CRD version's ``openAPIV3Schema``."""
    return KubernetesValidator(schema, format_checker=_FORMATS)


_BLOCKING = frozenset({"type", "enum", "anyOf", "oneOf"})


def structural_issues(validator: Any, obj: Any, label: str) -> tuple[list[Issue], bool]:
    """Every schema violation of ``obj``, each at its exact path, and whether one blocks CEL.

    Like the API server, CEL rules are not run on an object with a wrong type or an
    unsupported enum value (the rules could not be evaluated meaningfully).
    """
    errors = list(validator.iter_errors(obj))
    blocking = any(error.validator in _BLOCKING for error in errors)
    return [_to_issue(error, label) for error in errors], blocking


def _to_issue(error: ValidationError, label: str) -> Issue:
    parts = list(error.absolute_path)
    kind, message, fix = error.validator, error.message, f"see the {label} CRD schema"
    if kind == "required":
        missing = message.split("'")[1] if message.count("'") >= 2 else ""
        parts.append(missing)
        message, fix = "required field is missing", f"set {missing}"
    elif kind == "enum":
        message, fix = (
            f"{_short(error.instance)} is not one of {error.validator_value}",
            f"use one of {error.validator_value}",
        )
    elif kind in ("anyOf", "oneOf"):
        types = [s.get("type") for s in error.validator_value if isinstance(s, dict)]  # type: ignore[union-attr]  # a list here
        if all(types):
            message = f"must be of type {' or '.join(map(str, types))}, got {_type_name(error.instance)}"
    elif kind == "format":
        message, fix = (
            f"{_short(error.instance)} is not a valid {error.validator_value}",
            "use an RFC 3339 timestamp such as 2026-01-31T12:00:00Z",
        )
    elif kind == "type":
        fix = f"write it as {error.validator_value}" if isinstance(error.validator_value, str) else fix
    elif kind == "x-kubernetes-list-type":
        fix = "remove the duplicate or give it a different key"
    elif error.instance is not None and len(message) > 200:
        message = message.replace(repr(error.instance), _short(error.instance))
    return Issue(FieldPath.of(*parts) or "(root)", message, fix)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
