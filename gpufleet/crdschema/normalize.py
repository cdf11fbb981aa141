"""What the API server does to a custom resource before validating it.

Called by :mod:`gpufleet.crdschema.crdset` for ``validate`` and ``pruned_fields``.
In this order, as the apiextensions server does: fields not in the structural schema
are *pruned* (unless ``x-kubernetes-preserve-unknown-fields``; ``apiVersion``,
``kind`` and ``metadata`` are implicit at the root and in
``x-kubernetes-embedded-resource`` objects), ``null`` values of non-nullable fields
are dropped, then schema ``default`` values are filled in. Integral floats under
``type: integer`` become ints (Pulumi sends ``16.0``). The input is never modified;
the pruned paths are returned as issues.
"""

from __future__ import annotations

import copy
import difflib
from typing import Any

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.yamlin.errors import Issue

OBJECT_META = frozenset(
    {
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "ownerReferences",
        "finalizers",
        "managedFields",
    }
)
_RESOURCE_KEYS = ("apiVersion", "kind", "metadata")


def normalize(schema: dict[str, Any], obj: dict[str, Any], label: str) -> tuple[dict[str, Any], list[Issue]]:
    """The object as the API server would store it, and the fields it would drop."""
    pruned: list[Issue] = []
    return _walk(schema, obj, (), label, pruned, resource=True), pruned


def _walk(
    schema: dict[str, Any],
    value: Any,
    path: tuple[str | int, ...],
    label: str,
    pruned: list[Issue],
    resource: bool = False,
) -> Any:
    if isinstance(value, dict):
        return _walk_object(
            schema, value, path, label, pruned, resource or bool(schema.get("x-kubernetes-embedded-resource"))
        )
    if isinstance(value, list):
        items = schema.get("items")
        if not isinstance(items, dict):
            return value
        return [_walk(items, item, (*path, index), label, pruned) for index, item in enumerate(value)]
    if isinstance(value, float) and value.is_integer() and _wants_integer(schema):
        return int(value)
    return value


def _walk_object(
    schema: dict[str, Any],
    value: dict[str, Any],
    path: tuple[str | int, ...],
    label: str,
    pruned: list[Issue],
    resource: bool,
) -> dict[str, Any]:
    props: dict[str, Any] = schema.get("properties") or {}
    extra = schema.get("additionalProperties")
    keep_unknown = bool(schema.get("x-kubernetes-preserve-unknown-fields")) or extra is True
    out: dict[str, Any] = {}
    for key, item in value.items():
        sub = props.get(key) if key in props else (extra if isinstance(extra, dict) else None)
        here = (*path, key)
        if resource and key in _RESOURCE_KEYS:
            out[key] = _walk_metadata(item, here, label, pruned) if key == "metadata" else item
        elif sub is None and not keep_unknown:
            pruned.append(_pruned_issue(here, key, props, label))
        elif item is None and sub is not None and not sub.get("nullable"):
            pruned.append(
                Issue(
                    FieldPath.of(*here),
                    f"null is not allowed here (the field is not nullable in the {label} schema); "
                    "the API server would silently drop it",
                    "remove the field or give it a value",
                )
            )
        else:
            out[key] = item if sub is None else _walk(sub, item, here, label, pruned)
    for key, sub in props.items():
        if key not in out and isinstance(sub, dict) and "default" in sub:
            out[key] = _walk(sub, copy.deepcopy(sub["default"]), (*path, key), label, [])
    return out


def _walk_metadata(meta: Any, path: tuple[str | int, ...], label: str, pruned: list[Issue]) -> Any:
    if not isinstance(meta, dict):
        return meta
    for key in meta:
        if key not in OBJECT_META:
            pruned.append(_pruned_issue((*path, key), key, dict.fromkeys(OBJECT_META), "ObjectMeta"))
    return {k: v for k, v in meta.items() if k in OBJECT_META}


def _pruned_issue(path: tuple[str | int, ...], key: str, known: dict[str, Any], label: str) -> Issue:
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    fix = (
        f"did you mean {close[0]}? otherwise remove it"
        if close
        else "remove it (check the spelling and the apiVersion)"
    )
    return Issue(FieldPath.of(*path), f"field is not in the {label} schema; the API server would silently drop it", fix)


def _wants_integer(schema: dict[str, Any]) -> bool:
    if schema.get("type") == "integer" or schema.get("x-kubernetes-int-or-string"):
        return True
    return any(isinstance(s, dict) and s.get("type") == "integer" for s in schema.get("anyOf") or ())
