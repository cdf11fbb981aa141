"""Typed field paths: where a value sits inside an object, as segments, never as parsed text.

Every layer that names a field builds a :class:`FieldPath`: model issues, rule violations
and findings, pod templates (:mod:`gpufleet.workloads`), JSON Patch operations
(:mod:`gpufleet.mutate`) and the linter's line lookup (:mod:`gpufleet.lint.locate`), which
walks :attr:`FieldPath.segments`. Like Kueue's ``field.Path`` it has three steps:

- ``.child("spec", "tasks")``: a field name, printed ``spec.tasks``;
- ``.index(1)``: a list item, printed ``[1]``;
- ``.key("kueue.x-k8s.io/queue-name")``: a map key (labels, resources, ConfigMap data),
  printed ``[kueue.x-k8s.io/queue-name]`` whatever it contains.

``str()`` is the text every output prints (``spec.tasks[1].template.metadata.labels[gpufleet.dev/gang]``);
:meth:`FieldPath.pointer` the RFC 6901 JSON Pointer (``~`` and ``/`` escaped). A path compares
equal to its printed text, hashes like it and sorts by it, so findings sort as they always
did. Nothing reads a path back from text: :func:`get_value` and :func:`set_value` walk the
segments (the one way to read or write a value at a path in a plain dict tree).
Standard library only (the core's bottom layer).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterable, Iterator

Segment = str | int


class FieldPath:
    """An immutable, hashable path of field names, map keys and list indices."""

    __slots__ = ("segments", "_keys", "_text")

    segments: tuple[Segment, ...]
    _keys: int  # bit i set: segment i is a map key (printed in brackets)
    _text: str  # the printed text, set on first use

    def __init__(self, segments: tuple[Segment, ...] = (), keys: int = 0) -> None:
        _SEGMENTS(self, tuple(segments))
        _KEYS(self, keys)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"FieldPath is immutable (cannot set {name})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"FieldPath is immutable (cannot delete {name})")

    def __reduce__(self) -> tuple[Any, ...]:
        return FieldPath, (self.segments, self._keys)

    @classmethod
    def of(cls, *parts: Segment) -> FieldPath:
        """Field names and list indices (``of("teams", 2, "quota")``); empty names are skipped.

        Builds paths from tuples that come from outside, such as pydantic's error ``loc``.
        """
        return _make(tuple(p for p in parts if p != ""), 0)

    def child(self, *names: str) -> FieldPath:
        """This path followed by one or more field names."""
        return _make(self.segments + names, self._keys)

    def key(self, key: str) -> FieldPath:
        """This path followed by a map key (printed ``[key]``)."""
        return _make((*self.segments, key), self._keys | (1 << len(self.segments)))

    def index(self, i: int) -> FieldPath:
        """This path followed by a list index."""
        return _make((*self.segments, i), self._keys)

    def __add__(self, other: FieldPath) -> FieldPath:
        if not isinstance(other, FieldPath):
            return NotImplemented
        return _make(self.segments + other.segments, self._keys | (other._keys << len(self.segments)))

    @property
    def parent(self) -> FieldPath:
        """The path without its last segment (the root's parent is the root)."""
        return _make(self.segments[:-1], self._keys & ((1 << max(len(self.segments) - 1, 0)) - 1))

    def relative_to(self, prefix: FieldPath) -> FieldPath | None:
        """The rest of this path after ``prefix``, or None when it does not start with ``prefix``."""
        n = len(prefix.segments)
        if self.segments[:n] != prefix.segments or self._keys & ((1 << n) - 1) != prefix._keys:
            return None
        return _make(self.segments[n:], self._keys >> n)

    @property
    def last(self) -> Segment | None:
        return self.segments[-1] if self.segments else None

    def is_key(self, i: int) -> bool:
        """Whether segment ``i`` is a map key."""
        return bool(self._keys >> (i % len(self.segments)) & 1) if self.segments else False

    def __str__(self) -> str:
        try:
            return self._text
        except AttributeError:
            out: list[str] = []
            keys = self._keys
            for i, seg in enumerate(self.segments):
                if type(seg) is int or keys >> i & 1:
                    out.append(f"[{seg}]")
                else:
                    out.append(f".{seg}" if out else f"{seg}")
            text = "".join(out)
            _TEXT(self, text)
            return text

    def pointer(self) -> str:
        """The RFC 6901 JSON Pointer of this path (``/spec/tasks/1``; ``~`` -> ``~0``, ``/`` -> ``~1``)."""
        return "".join("/" + escape(s) for s in self.segments)

    def __repr__(self) -> str:
        return f"FieldPath({str(self)!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __bool__(self) -> bool:
        return bool(self.segments)

    def __len__(self) -> int:
        return len(self.segments)

    def __iter__(self) -> Iterator[Segment]:
        return iter(self.segments)

    # A path equals, hashes and sorts like its printed text, so callers (and tests) may
    # compare it with the text they expect, and findings sort exactly as before.
    def __eq__(self, other: object) -> bool:
        if isinstance(other, FieldPath):
            return self.segments == other.segments and self._keys == other._keys
        if isinstance(other, str):
            return str(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(str(self))

    def __lt__(self, other: object) -> bool:
        return str(self) < _text(other)

    def __le__(self, other: object) -> bool:
        return str(self) <= _text(other)

    def __gt__(self, other: object) -> bool:
        return str(self) > _text(other)

    def __ge__(self, other: object) -> bool:
        return str(self) >= _text(other)


# Slot setters (the class refuses attribute assignment): building a path stays a few hundred nanoseconds.
_SEGMENTS = FieldPath.__dict__["segments"].__set__
_KEYS = FieldPath.__dict__["_keys"].__set__
_TEXT = FieldPath.__dict__["_text"].__set__
_new = object.__new__


def _make(segments: tuple[Segment, ...], keys: int) -> FieldPath:
    path = _new(FieldPath)
    _SEGMENTS(path, segments)
    _KEYS(path, keys)
    return path


def _text(other: object) -> str:
    if isinstance(other, (FieldPath, str)):
        return str(other)
    raise TypeError(f"cannot compare a FieldPath with {type(other).__name__}")


ROOT = FieldPath()


def escape(segment: Segment) -> str:
    """One JSON Pointer reference token (RFC 6901): ``~`` -> ``~0``, ``/`` -> ``~1``."""
    text = str(segment)
    if "~" in text or "/" in text:
        return text.replace("~", "~0").replace("/", "~1")
    return text


def pointer(segments: Iterable[Segment]) -> str:
    """The JSON Pointer of raw segments (the patch builder's keys)."""
    return "".join("/" + escape(s) for s in segments)


_MISSING: Any = object()


def get_value(tree: Any, path: FieldPath | Iterable[Segment], default: Any = None) -> Any:
    """The value at ``path`` in a tree of dicts and lists, or ``default`` when the path leaves it."""
    node = tree
    for seg in path:
        if type(seg) is int:
            if not isinstance(node, list) or not -1 < seg < len(node):  # type: ignore[operator]
                return default
            node = node[seg]
        else:
            if type(node) is not dict and not isinstance(node, Mapping):
                return default
            node = node.get(seg, _MISSING)
            if node is _MISSING:
                return default
    return node


def set_value(tree: Any, path: FieldPath | Iterable[Segment], value: Any) -> None:
    """Write ``value`` at ``path``, creating missing maps on the way (list items must exist).

    Raises ``KeyError``/``IndexError``/``TypeError`` when a list item is missing or a
    parent on the way is not a container; rules only remediate paths their check read.
    """
    segments = path.segments if isinstance(path, FieldPath) else tuple(path)
    if not segments:
        raise KeyError("cannot set a value at the root path")
    node = tree
    for seg in segments[:-1]:
        node = node[seg] if type(seg) is int else node.setdefault(seg, {})
    node[segments[-1]] = value
