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
    """An immutable, hashable path of field names, map keys and list indices.

    One slot holds ``(segments, keys, text)``: ``keys`` has bit i set when segment i is a
    map key (printed in brackets); ``text`` is the printed form, built one step at a time
    with the path, so ``str()``, ``hash()`` and sorting cost nothing.
    """

    __slots__ = ("_v",)

    _v: tuple[tuple[Segment, ...], int, str]

    def __init__(self, segments: Iterable[Segment] = (), keys: int = 0) -> None:
        segments = tuple(segments)
        _SET(self, (segments, keys, _render(segments, keys)))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"FieldPath is immutable (cannot set {name})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"FieldPath is immutable (cannot delete {name})")

    def __reduce__(self) -> tuple[Any, ...]:
        return FieldPath, self._v[:2]

    @classmethod
    def of(cls, *parts: Segment) -> FieldPath:
        """Field names and list indices (``of("teams", 2, "quota")``); empty names are skipped.

        Builds paths from tuples that come from outside, such as pydantic's error ``loc``.
        """
        segments = tuple(p for p in parts if p != "")
        return _make(segments, 0, _render(segments, 0))

    @property
    def segments(self) -> tuple[Segment, ...]:
        return self._v[0]

    def child(self, *names: str) -> FieldPath:
        """This path followed by one or more field names."""
        if not names:
            return self
        segments, keys, text = self._v
        joined = ".".join(names)
        path = _new(FieldPath)  # _make, inlined: these three run for every template and container of every object
        _SET(path, (segments + names, keys, f"{text}.{joined}" if text else joined))
        return path

    def key(self, key: str) -> FieldPath:
        """This path followed by a map key (printed ``[key]``)."""
        segments, keys, text = self._v
        path = _new(FieldPath)
        _SET(path, ((*segments, key), keys | (1 << len(segments)), f"{text}[{key}]"))
        return path

    def index(self, i: int) -> FieldPath:
        """This path followed by a list index."""
        segments, keys, text = self._v
        path = _new(FieldPath)
        _SET(path, ((*segments, i), keys, f"{text}[{i}]"))
        return path

    def __add__(self, other: FieldPath) -> FieldPath:
        if not isinstance(other, FieldPath):
            return NotImplemented
        (mine, my_keys, my_text), (theirs, their_keys, their_text) = self._v, other._v
        if not mine or not theirs:
            return self if theirs == () else other
        bracketed = type(theirs[0]) is int or their_keys & 1
        return _make(
            mine + theirs,
            my_keys | (their_keys << len(mine)),
            my_text + their_text if bracketed else f"{my_text}.{their_text}",
        )

    @property
    def parent(self) -> FieldPath:
        """The path without its last segment (the root's parent is the root)."""
        segments, keys, _ = self._v
        return FieldPath(segments[:-1], keys & ((1 << max(len(segments) - 1, 0)) - 1))

    def relative_to(self, prefix: FieldPath) -> FieldPath | None:
        """The rest of this path after ``prefix``, or None when it does not start with ``prefix``."""
        segments, keys, _ = self._v
        n = len(prefix._v[0])
        if segments[:n] != prefix._v[0] or keys & ((1 << n) - 1) != prefix._v[1]:
            return None
        return FieldPath(segments[n:], keys >> n)

    @property
    def last(self) -> Segment | None:
        segments = self._v[0]
        return segments[-1] if segments else None

    def __str__(self) -> str:
        return self._v[2]

    def pointer(self) -> str:
        """The RFC 6901 JSON Pointer of this path (``/spec/tasks/1``; ``~`` -> ``~0``, ``/`` -> ``~1``)."""
        return pointer(self._v[0])

    def __repr__(self) -> str:
        return f"FieldPath({self._v[2]!r})"

    def __format__(self, spec: str) -> str:
        return format(self._v[2], spec)

    def __bool__(self) -> bool:
        return bool(self._v[0])

    def __len__(self) -> int:
        return len(self._v[0])

    def __iter__(self) -> Iterator[Segment]:
        return iter(self._v[0])

    # A path equals, hashes and sorts like its printed text, so callers (and tests) may
    # compare it with the text they expect, and findings sort exactly as before.
    def __eq__(self, other: object) -> bool:
        if isinstance(other, FieldPath):
            return self._v[:2] == other._v[:2]
        if isinstance(other, str):
            return self._v[2] == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._v[2])

    def __lt__(self, other: object) -> bool:
        return self._v[2] < _text(other)

    def __le__(self, other: object) -> bool:
        return self._v[2] <= _text(other)

    def __gt__(self, other: object) -> bool:
        return self._v[2] > _text(other)

    def __ge__(self, other: object) -> bool:
        return self._v[2] >= _text(other)


_SET = FieldPath.__dict__["_v"].__set__  # the class refuses attribute assignment; this builds one
_new = object.__new__


def _make(segments: tuple[Segment, ...], keys: int, text: str) -> FieldPath:
    path = _new(FieldPath)
    _SET(path, (segments, keys, text))
    return path


def _render(segments: tuple[Segment, ...], keys: int) -> str:
    """The printed text of segments: names joined by dots, map keys and indices in brackets."""
    out: list[str] = []
    for i, seg in enumerate(segments):
        if type(seg) is int or keys >> i & 1:
            out.append(f"[{seg}]")
        else:
            out.append(f".{seg}" if out else f"{seg}")
    return "".join(out)


def _text(other: object) -> str:
    if isinstance(other, FieldPath):
        return other._v[2]
    if isinstance(other, str):
        return other
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
            if not isinstance(node, list) or not -1 < seg < len(node):
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
    segments = path._v[0] if type(path) is FieldPath else tuple(path)
    if not segments:
        raise KeyError("cannot set a value at the root path")
    node = tree
    for seg in segments[:-1]:
        node = node[seg] if type(seg) is int else node.setdefault(seg, {})
    node[segments[-1]] = value
