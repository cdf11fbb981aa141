"""Build RFC 6902 JSON Patch operations straight from the object, without diffing.

The mutator (``gpufleet.mutate.core``) calls :class:`PatchBuilder` once per
default it wants to set, at a :class:`~gpufleet.kubetypes.fieldpath.FieldPath` (pod templates carry
theirs) or a tuple of keys. The builder walks the *original* object along the path's
segments and emits a single ``add`` (``replace`` for an explicit ``null``) at the first
missing map, carrying the rest of the path as nested maps. Later defaults under a
map or list it has already created are written into that same value, so
``metadata.labels`` absent plus two labels gives one ``add`` of the whole map, and
the patch applies cleanly in order.

It never overwrites a value the user set, and it gives up (no op) when a parent on
the way is not a map or list (a schema error the validator reports instead). List
items are addressed by index but never created.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from gpufleet.kubetypes.fieldpath import FieldPath, escape, pointer
from gpufleet.util.maps import is_map

Key = str | int

_MISSING = object()  # the key is absent from a map
_INVALID = object()  # the parent cannot hold the key (not a map / not a list / index out of range)


__all__ = ["PatchBuilder", "escape", "is_map", "is_unset", "pointer"]


def _segments(path: FieldPath | Sequence[Key]) -> tuple[Key, ...]:
    return path.segments if type(path) is FieldPath else tuple(path)


def is_unset(value: Any) -> bool:
    """``null`` or the empty string: what Kubernetes treats as "not given"."""
    return value is None or value == ""


def _child(node: Any, key: Key) -> Any:
    if isinstance(key, int):
        if type(node) is list and 0 <= key < len(node):
            return node[key]
        return _INVALID
    if is_map(node):
        return node.get(key, _MISSING)
    return _INVALID


def _nest(keys: Sequence[Key], leaf: Any) -> Any:
    for key in reversed(keys):
        leaf = {key: leaf}
    return leaf


class PatchBuilder:
    """Accumulate JSON Patch operations against one object (see the module docstring)."""

    def __init__(self, obj: Mapping[str, Any]) -> None:
        self.obj = obj
        self.ops: list[dict[str, Any]] = []
        self._created: dict[tuple[Key, ...], Any] = {}  # keys of an op -> the map or list that op adds

    def set_default(self, path: FieldPath | Sequence[Key], value: Any, unset: Callable[[Any], bool] = is_unset) -> bool:
        """Set ``value`` at ``path`` when absent or ``unset``; True when the patch changed."""
        keys = _segments(path)
        node: Any = self.obj
        for depth, key in enumerate(keys):
            created = self._created.get(keys[: depth + 1]) if self._created else None
            if created is not None:
                return _fill(created, keys[depth + 1 :], value)
            child = _child(node, key)
            last = depth == len(keys) - 1
            if child is _INVALID or (child is None and type(key) is int):  # never fill a null list item
                return False
            if child is _MISSING or child is None or (last and unset(child)):
                self._emit(keys[: depth + 1], _nest(keys[depth + 1 :], value), replace=child is not _MISSING)
                return True
            if last or not (type(child) is list or is_map(child)):
                return False
            node = child
        return False

    def append(self, path: FieldPath | Sequence[Key], item: Any) -> bool:
        """Append ``item`` to the list at ``path``, creating the list (and missing maps) when absent."""
        keys = _segments(path)
        node: Any = self.obj
        for depth, key in enumerate(keys):
            here = keys[: depth + 1]
            created = self._created.get(here) if self._created else None
            if created is not None:
                return _fill(created, keys[depth + 1 :], item, append=True)
            child = _child(node, key)
            if child is _INVALID or (child is None and type(key) is int):
                return False
            if child is _MISSING or child is None:
                self._emit(here, _nest(keys[depth + 1 :], [item]), replace=child is not _MISSING)
                return True
            if depth == len(keys) - 1:
                if type(child) is not list:
                    return False
                self.ops.append({"op": "add", "path": pointer(here) + "/-", "value": item})
                return True
            if not (type(child) is list or is_map(child)):
                return False
            node = child
        return False

    def _emit(self, keys: tuple[Key, ...], value: Any, replace: bool) -> None:
        self.ops.append({"op": "replace" if replace else "add", "path": pointer(keys), "value": value})
        if isinstance(value, (dict, list)):
            self._created[keys] = value


def _fill(container: Any, keys: Sequence[Key], value: Any, append: bool = False) -> bool:
    """Write into a value this builder created (no op needed: the op carries it by reference)."""
    node = container
    for key in keys[:-1] if keys else ():
        if not isinstance(node, dict):
            return False
        node = node.setdefault(key, {})
    if not keys:
        if append and isinstance(node, list):
            node.append(value)
            return True
        return False
    if not isinstance(node, dict):
        return False
    last = keys[-1]
    if append:
        target = node.setdefault(last, [])
        if not isinstance(target, list):
            return False
        target.append(value)
        return True
    if is_unset(node.get(last)):
        node[last] = value
        return True
    return False
