"""A finding's line from the document's text, without composing YAML nodes.

Called by :mod:`gpufleet.lint.locate` for documents the loader read without nodes
(the yaml-rs path of :mod:`gpufleet.lint.fastyaml`). It walks a path through block-style
YAML by indentation: a mapping's keys sit at one column, a sequence's ``-`` at one
column, everything deeper belongs to the entry above. It answers exactly what
:func:`gpufleet.lint.locate.line_of` answers on PyYAML's nodes (the line of the key, or
of a sequence item's first token; the deepest node the path reaches) - or ``None``
when the text leaves the simple block subset (flow collections, quoted scalars spanning
lines, block scalars holding YAML, anchors, tags, odd keys), and the caller then
composes the document's nodes with PyYAML. tests/lint/test_textlocate.py checks it
against the node walk on every path of the upstream examples and the rule fixtures.
"""

from __future__ import annotations

import re

from gpufleet.lint import fastyaml

_KEY = re.compile(r"""(?:"([^"\\\n]*)"|'([^'\n]*)'|([^\s#'"\[\]{},&*!|>%@`?-](?:(?![ \t]#)[^\n])*?|-[^\s](?:(?![ \t]#)[^\n])*?))[ \t]*:(?:[ \t]+|$)""")
# A flow collection or quoted scalar opened at a value position and not closed on its line.
_UNSAFE = re.compile(r"""(?:^[ \t]*(?:-[ \t]+)*|[:-][ \t]+)["'\[{](?:(?![ \t]#)[^\n])*(?<![\]}"'])[ \t]*(?:[ \t]#[^\n]*)?$""",
                     re.MULTILINE)
_COMPLEX = frozenset("[{&*!|>\"'")
Block = tuple[str, int, int]  # ("map" | "seq", column, first line)
Node = Block | str | None  # a block, "scalar", or None when unsure


def indents(lines: list[str]) -> list[int]:
    """Each line's indentation; -1 for blank and comment-only lines."""
    out = []
    for line in lines:
        stripped = line.lstrip(" ")
        out.append(-1 if not stripped or stripped[0] == "#" or stripped.isspace() else len(line) - len(stripped))
    return out


def _is_item(line: str, col: int) -> bool:
    return line.startswith("-", col) and (len(line) == col + 1 or line[col + 1] in " \t")


def _block_at(lines: list[str], row: int, col: int) -> Node:
    """The node whose first token is at (row, col): a block mapping or sequence, "scalar", or None."""
    text = lines[row]
    if _is_item(text, col):
        return "seq", col, row
    if text[col] in _COMPLEX:
        return None
    return ("map", col, row) if _KEY.match(text, col) else "scalar"


def _value(lines: list[str], ind: list[int], row: int, col: int, owner: int, compact: bool) -> tuple[Node, int]:
    """The node after ``key:`` or ``-`` (``col`` just past it) and its line; ``owner`` is the entry's column.

    On a later line the node must be deeper than ``owner`` (or, after a key, a ``-`` at
    ``owner``: a compact sequence); otherwise the value is null, on the entry's line.
    """
    rest = lines[row][col:]
    stripped = rest.lstrip(" ")
    if stripped and stripped[0] != "#":
        return _block_at(lines, row, col + len(rest) - len(stripped)), row
    nxt = row + 1
    while nxt < len(ind) and ind[nxt] < 0:
        nxt += 1
    if nxt >= len(ind):
        return "scalar", row
    at = ind[nxt]
    if at > owner or (compact and at == owner and _is_item(lines[nxt], owner)):
        return _block_at(lines, nxt, at), nxt
    return "scalar", row


def _child(lines: list[str], ind: list[int], block: Block, part: str | int) -> tuple[Node, int] | str | None:
    """(child node, its line), "absent", or None when unsure."""
    kind, col, first = block
    for row in range(first, len(ind)):
        at = ind[row]
        if row != first:
            if at < 0 or at > col:
                continue
            if at < col:
                break
        line = lines[row]
        if kind == "seq":
            if not _is_item(line, col):
                break
            if not isinstance(part, int):
                return "absent"
            if part:
                part -= 1
                continue
            return _value(lines, ind, row, col + 1, col, False)
        if _is_item(line, col):
            continue  # a compact sequence under the previous key
        found = _KEY.match(line, col)
        if found is None:
            return None  # a line at the mapping's column that is not a simple key
        key = next(g for g in found.groups() if g is not None)
        if key.rstrip() == str(part):
            return _value(lines, ind, row, found.end(), col, True)[0], row
    return "absent"


def line_of(lines: list[str], ind: list[int], start: int, parts: list[str | int]) -> int | None:
    """1-based line of the deepest node ``parts`` reaches in the document whose first node is on ``start``.

    ``lines`` are the document's lines (0-based rows) and ``ind`` their :func:`indents`; None when unsure.
    """
    node: Node = _block_at(lines, start, ind[start])
    line = start
    for part in parts:
        if node is None:
            return None
        if node == "scalar":
            break
        child = _child(lines, ind, node, part)  # type: ignore[arg-type]
        if child is None:
            return None
        if child == "absent":
            break
        node, line = child  # type: ignore[misc]
    return line + 1


def safe(text: str) -> bool:
    """Whether the document text stays in the block subset :func:`line_of` reads by indentation."""
    return _UNSAFE.search(text) is None and fastyaml.plain_syntax(text)
