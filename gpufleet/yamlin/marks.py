"""Where a field path is written in a YAML text: its line and column, for ``file:line:column`` messages.

Called by :mod:`gpufleet.model.loader` (a model issue names its line and column, so an
editor or a CI annotation can point at it) and :mod:`gpufleet.lint.locate` (a finding's
line), which share :func:`child`. The walk reads a path's segments through the composed
nodes; a path that goes beyond what the text holds (a field to add, a value out of a
list) stops at the deepest node it reaches, so a missing field points at its parent.
"""

from __future__ import annotations

from typing import Any, Iterable

import yaml

from gpufleet.yamlin import yamllimits


def child(node: Any, part: str | int) -> tuple[Any, Any] | None:
    """The node at ``part`` under ``node`` and the mark where it is written (its key's, in a mapping)."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                return value, key.start_mark
    elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        return node.value[part], node.value[part].start_mark
    return None


def compose(text: str) -> Any:
    """The text's node tree (None when it has no document or cannot be composed: no position then)."""
    try:
        return yaml.compose(text, Loader=yamllimits.Loader)
    except yaml.YAMLError:
        return None


def position(root: Any, segments: Iterable[str | int]) -> tuple[int, int] | None:
    """1-based (line, column) of the deepest node ``segments`` reach from ``root`` (None without a node)."""
    if root is None:
        return None
    node, mark = root, root.start_mark
    for part in segments:
        found = child(node, part)
        if found is None:
            break
        node, mark = found
    return mark.line + 1, mark.column + 1
