"""Apply an RFC 6902 JSON Patch onto a ruamel.yaml round-trip tree, keeping comments and order.

Called by :mod:`gpufleet.lint.fix` with the operations the admission controller's mutator
returns (:func:`gpufleet.mutate.mutate`, the same list the webhook's ``/mutate`` sends).
Only the nodes an operation names change: every other key keeps its place, quotes, flow
style and comments. ``add`` to a map puts the key where Kubernetes' own output has it when
the map holds a key that conventionally follows it (``metadata`` before ``spec``, ``labels``
before ``annotations``: :data:`CONVENTIONAL_ORDER`), else at its end, as a JSON object member
added by the API server would be printed last; full-line comments that followed the map's
old last entry (which ruamel.yaml attaches to that entry) move below the new one, so a
comment introducing the next block stays in front of that block. ``add``, ``replace`` and
``remove`` are supported (the mutator emits no other); anything else, or a path that does
not resolve, raises :class:`PatchError` and the caller leaves the file untouched.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from jsonpointer import JsonPointer, JsonPointerException
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark
from ruamel.yaml.tokens import CommentToken


class PatchError(ValueError):
    """An operation that cannot be applied to this tree (the message says which and why)."""


def apply(root: Any, ops: Sequence[Mapping[str, Any]]) -> None:
    """Apply ``ops`` to ``root`` in place, in order (raises :class:`PatchError`)."""
    for op in ops:
        _apply_one(root, op)


def to_tree(value: Any) -> Any:
    """A plain JSON value as round-trip nodes (maps and lists become block-style commented nodes)."""
    if isinstance(value, Mapping):
        node = CommentedMap()
        for key, item in value.items():
            node[key] = to_tree(item)
        return node
    if isinstance(value, list):
        return CommentedSeq(to_tree(item) for item in value)
    return value


def _parts(path: str) -> list[str]:
    try:
        return list(JsonPointer(path).parts)
    except JsonPointerException as exc:
        raise PatchError(f"bad JSON pointer {path!r}: {exc}") from None


def _walk(root: Any, parts: list[str], path: str) -> Any:
    node = root
    for part in parts:
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise PatchError(f"{path}: no value at {part!r}")
    return node


def _apply_one(root: Any, op: Mapping[str, Any]) -> None:
    kind, path = op.get("op"), str(op.get("path", ""))
    parts = _parts(path)
    if kind not in ("add", "replace", "remove") or not parts:
        raise PatchError(f"{path or '(root)'}: operation {kind!r} is not applied to a file")
    parent, last = _walk(root, parts[:-1], path), parts[-1]
    value = to_tree(op.get("value"))
    if isinstance(parent, CommentedMap):
        if kind == "add" and last not in parent:
            holder = _walk(root, parts[:-2], path) if len(parts) > 1 else None
            _add_key(parent, last, value, (holder, parts[-2]) if isinstance(holder, CommentedMap) else None)
        elif kind == "remove" and last in parent:
            del parent[last]
        elif kind in ("add", "replace") and last in parent:
            parent[last] = value
        else:
            raise PatchError(f"{path}: no member {last!r} to {kind}")
    elif isinstance(parent, CommentedSeq):
        index = len(parent) if last == "-" and kind == "add" else int(last) if last.isdigit() else -1
        if kind == "add" and index == len(parent):
            _append_item(parent, value)
        elif 0 <= index < len(parent):
            if kind == "add":
                parent.insert(index, value)
            elif kind == "replace":
                parent[index] = value
            else:
                del parent[index]
        else:
            raise PatchError(f"{path}: no item {last!r} to {kind}")
    else:
        raise PatchError(f"{path}: the parent is not a map or a list")


def _flow(node: Any) -> bool:
    return bool(node.fa.flow_style()) if isinstance(node, (CommentedMap, CommentedSeq)) else False


def _tail(node: Any) -> tuple[list[Any], int] | None:
    """The comment slot of ``node``'s deepest last entry (``(ca entry, index)``), following block collections."""
    while isinstance(node, (CommentedMap, CommentedSeq)) and len(node) and not _flow(node):
        last = next(reversed(node)) if isinstance(node, CommentedMap) else len(node) - 1
        child = node[last]
        if isinstance(child, (CommentedMap, CommentedSeq)) and len(child) and not _flow(child):
            node = child
            continue
        slot = 2 if isinstance(node, CommentedMap) else 0
        entry = node.ca.items.setdefault(last, [None, None, None, None])
        return entry, slot
    return None


def _entry_tail(parent: CommentedMap, key: Any) -> tuple[list[Any], int]:
    """The comment slot after ``parent[key]``'s deepest last entry (the key's own when its value is no block)."""
    child = parent[key]
    if isinstance(child, (CommentedMap, CommentedSeq)) and len(child) and not _flow(child):
        found = _tail(child)
        if found is not None:
            return found
    return parent.ca.items.setdefault(key, [None, None, None, None]), 2


def _take_following_lines(node: Any) -> str:
    """Detach the full-line comments (and blank lines) after ``node``'s last entry; its end-of-line comment stays."""
    if _flow(node):
        return ""
    found = _tail(node)
    if found is None:
        return ""
    return _take_lines(found)


def _take_lines(found: tuple[list[Any], int]) -> str:
    """Detach the full-line comments (and blank lines) in a comment slot; its end-of-line comment stays."""
    entry, slot = found
    token = entry[slot]
    if not isinstance(token, CommentToken) or "\n" not in token.value:
        return ""
    eol, _, rest = token.value.partition("\n")
    if not rest:
        return ""
    if eol.strip():
        token.value = eol + "\n"  # shared by reference where ruamel keeps it twice: changed in place
    else:
        entry[slot] = None
    return rest


def _give_following_lines(node: Any, lines: str) -> None:
    if not lines:
        return
    found = _tail(node)
    if found is None:
        return
    _give_lines(found, lines)


def _give_lines(found: tuple[list[Any], int], lines: str) -> None:
    entry, slot = found
    entry[slot] = CommentToken("\n" + lines, CommentMark(0), None)


CONVENTIONAL_ORDER = (
    ("apiVersion", "kind", "metadata", "spec", "status"),
    ("name", "generateName", "namespace", "labels", "annotations", "ownerReferences", "finalizers"),
)
"""Key orders Kubernetes' own output keeps (an object, a pod template; its metadata): a key added to a map
that holds a later key of its group goes in front of that key, so ``metadata`` never follows ``spec``."""


def _before(parent: CommentedMap, key: str) -> int | None:
    """The position ``key`` takes in ``parent`` by :data:`CONVENTIONAL_ORDER`, or None (append)."""
    for order in CONVENTIONAL_ORDER:
        if key in order:
            later = set(order[order.index(key) + 1 :])
            return next((i for i, k in enumerate(parent) if k in later), None)
    return None


def _add_key(parent: CommentedMap, key: str, value: Any, holder: tuple[CommentedMap, str] | None) -> None:
    """Add ``key`` at its conventional place (:func:`_before`), else last; the full-line comments in front of the
    key it goes before stay in front of that key. ``holder``: the map and key that hold ``parent``, whose comment
    slot holds the lines before ``parent``'s first key."""
    at = _before(parent, key)
    if at is None:
        lines = _take_following_lines(parent)
        parent[key] = value
        _give_following_lines(parent, lines)
        return
    if at > 0:
        lines = _take_lines(_entry_tail(parent, list(parent)[at - 1]))
    else:
        lines = _take_leading_lines(*holder) if holder is not None else ""
    parent.insert(at, key, value)
    if lines:
        _give_lines(_entry_tail(parent, key), lines)


def _take_leading_lines(holder: CommentedMap, key: str) -> str:
    """Detach the full-line comments in front of ``holder[key]``'s first key (ruamel keeps them on ``key``)."""
    entry = holder.ca.items.get(key)
    tokens = entry[3] if entry and len(entry) > 3 else None
    if not tokens:
        return ""
    entry[3] = None
    if isinstance(holder[key], CommentedMap):
        holder[key].ca.comment = None
    return "".join(" " * t.start_mark.column + t.value for t in tokens if isinstance(t, CommentToken))


def _append_item(parent: CommentedSeq, value: Any) -> None:
    lines = _take_following_lines(parent)
    parent.append(value)
    _give_following_lines(parent, lines)
