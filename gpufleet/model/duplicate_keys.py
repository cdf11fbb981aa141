"""Duplicate keys in a model file are errors, not a silent "last one wins".

Called by :func:`gpufleet.model.loader.load_model` once the text has passed the input limits:
PyYAML keeps the last of two equal keys, so a second ``teams:`` block silently drops
the first list of teams. This composes the YAML node tree (no Python objects are
built) and reports every mapping key seen twice, at its model path, with both lines.
Merge keys (``<<``) are left to YAML. Only the duplicate check lives here; the limits
on depth, aliases and numbers (:mod:`gpufleet.yamlin.yamllimits`) run first, so the walk here is bounded.
"""

from __future__ import annotations

from typing import Iterator

import yaml

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.yamlin.errors import Issue

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _walk(node: yaml.Node, path: tuple[str | int, ...]) -> Iterator[Issue]:
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            if name is not None and name != "<<":
                line = key.start_mark.line + 1
                if name in seen:
                    yield Issue(
                        FieldPath.of(*path, name) or name,
                        f"key {name!r} appears twice (lines {seen[name]} and {line}); YAML would keep only "
                        "the last one and silently drop the first",
                        "merge the two blocks into one key, or remove the stale one",
                    )
                else:
                    seen[name] = line
            yield from _walk(value, (*path, name if name is not None else "?"))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield from _walk(item, (*path, i))


def check(text: str) -> list[Issue]:
    """Every duplicate mapping key of the first YAML document of ``text`` (syntax errors are the loader's)."""
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return []
    return list(_walk(root, ())) if root is not None else []
