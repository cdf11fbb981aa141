"""Map a finding's :class:`~gpufleet.kubetypes.fieldpath.FieldPath` (``spec.tasks[1].template.spec.containers[0]``) to a line of its file.

Called by :mod:`gpufleet.lint.runner` for findings only (objects without findings
never pay for it). The loader keeps each object's YAML node, or, for documents read by
yaml-rs (no nodes), a :class:`TextDoc`: its text is then walked by indentation
(:mod:`gpufleet.lint.textlocate`) and, where that is unsure, composed into PyYAML nodes
once, lazily. :func:`line_of` walks the path through the node and returns the line of the deepest node the path reaches, so a
finding about a missing field points at its parent. The walk reads the path's segments
(a map key such as ``kueue.x-k8s.io/pod-group-total-count`` is one segment, dots and all);
no path is read back from its text. A path
into a block-scalar string that holds YAML (``data[controller_manager_config.yaml].waitForPodsReady``)
continues inside the embedded document.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.lint import textlocate
from gpufleet.yamlin import marks

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _child(node: Any, part: str | int) -> tuple[Any, int] | None:
    """The child node at ``part`` and the line it is written on (its key's line in a mapping)."""
    found = marks.child(node, part)
    return (found[0], found[1].line) if found is not None else None


def _embedded(node: Any) -> tuple[Any, int] | None:
    """The YAML document inside a block-scalar string node, and its first line's offset."""
    if not isinstance(node, yaml.ScalarNode) or node.style not in ("|", ">"):
        return None
    try:
        inner = yaml.compose(node.value, Loader=_Loader)
    except yaml.YAMLError:
        return None
    return (inner, node.start_mark.line + 1) if inner is not None else None


def line_of(node: Any, path: FieldPath) -> int | None:
    """1-based line of the deepest node ``path`` reaches from ``node`` (None without a node)."""
    if node is None:
        return None
    if isinstance(node, TextDoc):
        return node.line_of(path)
    offset = 0
    line = node.start_mark.line
    for part in path.segments:
        child = _child(node, part)
        if child is None:
            inner = _embedded(node)
            if inner is None:
                break
            node, offset = inner[0], offset + inner[1]
            child = _child(node, part)
            if child is None:
                break
        node, at = child
        line = offset + at
    return line + 1


@dataclass(slots=True)
class TextDoc:
    """A document read without nodes: its text, starting on 0-based line ``first`` of its file."""

    text: str | None  # None once released (read again from ``_file`` when a finding needs a line)
    first: int
    start: int  # 0-based line of the document's first node
    plain: bool = False  # known to have no anchors, tags, complex keys... (fastyaml.plain_syntax)
    _file: Any = field(default=None, repr=False)  # a gpufleet.lint.filetext.FileText after release()
    _length: int = field(default=0, repr=False)
    _lined: str | None = field(default=None, repr=False)  # the text the walk reads (textlocate.walkable)
    _node: Any = field(default=None, repr=False)
    _seen: dict[Any, Any] | None = field(default=None, repr=False)  # made on the first walk
    _safe: bool | None = field(default=None, repr=False)

    def release(self, file: Any) -> None:
        """Drop the text; ``file`` (a :class:`~gpufleet.lint.filetext.FileText`) gives it back when a line is asked for."""
        if self.text is not None:
            self._length, self.text, self._file = len(self.text), None, file

    def line_of(self, path: FieldPath) -> int | None:
        """Like :func:`line_of` on the document's node, from the text when the text is simple enough.

        None when the text was released and its file no longer holds it.
        """
        if self.text is None:
            self.text = self._file.part(self.first, self._length) if self._file is not None else None
            self._file = None
            if self.text is None:
                return None
        if self._safe is None:
            self._lined = textlocate.walkable(self.text, self.plain)
            self._safe = self._lined is not None
        if self._safe:
            assert self._lined is not None
            if self._seen is None:
                self._seen = {}
            line = textlocate.line_of(self._lined, path.segments, self._seen)
            if line is not None:
                return line + self.first
        if self._node is None:
            self._node = yaml.compose(self.text, Loader=_Loader)
        found = line_of(self._node, path)
        return None if found is None else found + self.first
