"""Field errors people can act on: the offending value, the nearest known key, "quote it".

Called by :func:`gpufleet.model.loader.issues_from_pydantic` for each pydantic error.
pydantic says ``String should match pattern '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'`` and
``Extra inputs are not permitted``; this module rewrites such messages:

- a pattern mismatch quotes the value it found (shortened to 40 characters);
- an unknown key names the nearest known field at that place (``difflib``), found by
  walking the pydantic model along the error's location, never one already written
  beside it (``colour`` on a team that has ``cohort:`` suggests nothing, not ``cohort``);
- a YAML boolean or number where a string belongs (``name: yes``, ``name: 0755``) says
  to quote it, since YAML turned it into another type before the model saw it;
- a list of cohorts on a team says that a team has one cohort.
"""

from __future__ import annotations

import difflib
import typing
from typing import Any, Mapping

from pydantic import BaseModel

MAX_SHOWN = 40


def shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def _unwrap(annotation: Any) -> list[Any]:
    """The model classes and containers an annotation may hold (Optional, list[...], dict[..., ...])."""
    origin = typing.get_origin(annotation)
    if origin is None:
        return [annotation]
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    return [inner for arg in args for inner in _unwrap(arg)] if origin is not typing.Annotated else _unwrap(args[0])


def _model_at(root: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model class whose field ``loc[-1]`` is (None when the walk leaves the models)."""
    current: list[Any] = [root]
    for part in loc[:-1]:
        models = [n for n in current if isinstance(n, type) and issubclass(n, BaseModel)]
        nxt: list[Any] = []
        for node in models:
            field = next((f for n, f in node.model_fields.items() if (f.alias or n) == part or n == part), None)
            # a field: step into its type; otherwise a list index or dict key: the element model stays
            nxt.extend(_unwrap(field.annotation) if field is not None else [node])
        current = nxt
    return next((n for n in current if isinstance(n, type) and issubclass(n, BaseModel)), None)


def present_keys(data: Any, loc: tuple[Any, ...]) -> frozenset[str]:
    """The keys of the mapping that holds ``loc[-1]`` in the raw document (empty when the walk fails)."""
    node = data
    for part in loc[:-1]:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return frozenset()
    return frozenset(k for k in node if isinstance(k, str)) if isinstance(node, dict) else frozenset()


def nearest_key(root: type[BaseModel], loc: tuple[Any, ...], present: frozenset[str] = frozenset()) -> str | None:
    """The known field nearest to the unknown key ``loc[-1]``, leaving out the fields already written beside it."""
    model = _model_at(root, loc)
    if model is None or not isinstance(loc[-1], str):
        return None
    names = [name for n, f in model.model_fields.items() if (name := f.alias or n) not in present]
    close = difflib.get_close_matches(loc[-1], names, n=1, cutoff=0.6)
    return close[0] if close else None


def rewrite(
    root: type[BaseModel], error: Mapping[str, Any], message: str, fix: str, data: Any = None
) -> tuple[str, str]:
    """(message, fix) for one pydantic error, made specific where this module knows how (``data``: the raw document)."""
    kind, value = error["type"], error.get("input")
    if kind == "extra_forbidden":
        loc = tuple(error["loc"])
        near = nearest_key(root, loc, present_keys(data, loc) - {loc[-1]})
        if near:
            return f"unknown field {error['loc'][-1]!r}; did you mean {near!r}?", f"rename it to {near}"
        return f"unknown field {error['loc'][-1]!r}", fix
    if kind == "string_pattern_mismatch":
        return f"{shown(value)} does not have the form this field needs", fix
    if kind == "string_type" and isinstance(value, (list, tuple)) and error["loc"][-1:] == ("cohort",):
        return (
            f"{shown(value)} is a list, but a team belongs to exactly one cohort",
            "name one cohort (cohort: research); to share quota with more teams, put them in that cohort "
            "or nest cohorts with cohorts[].parent",
        )
    if kind == "string_type" and isinstance(value, (bool, int, float)):
        what = "a YAML boolean" if isinstance(value, bool) else "a YAML number"
        return (
            f"{shown(value)} is {what}, not a string: YAML converted the unquoted value",
            "quote the value (\"yes\", \"0755\") so YAML keeps it a string",
        )
    return message, fix
