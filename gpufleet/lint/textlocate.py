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

import functools
import re
from typing import Any

from gpufleet.lint import fastyaml

_KEY = re.compile(
    r"""(?:"([^"\\\n]*)"|'([^'\n]*)'|([^\s#'"\[\]{},&*!|>%@`?-](?:(?![ \t]#)[^\n])*?|-[^\s](?:(?![ \t]#)[^\n])*?))[ \t]*:(?:[ \t]+|$)""",
    re.MULTILINE,
)
# The first quote or bracket of a line, and the rest of the line (one match per such line).
_OPENED = re.compile(r"""["'\[{][^\n]*""")
_BLOCK_INDICATOR = re.compile(r"[|>][-+0-9]*[ \t]*(?:#[^\n]*)?$")
_VALUE_OPENER = re.compile(r"""(?<=[:-] )["'\[{]""")
_NEXT = re.compile(r"\n( *)(?=[^ \n#])")  # the next row with content (not blank, not a comment)
_CONTENT_ROW = re.compile(r"\n( *)([^ \n#][^\n]*)")  # a row with content: its indentation and the rest
_NEVER = re.compile(r"\A(?!)")  # fails at once (a pattern that starts with an assertion would scan the text)
_COMPLEX = frozenset("[{&*!|>\"'")
Block = tuple[str, int, int]  # ("map" | "seq", column, offset of its first token)
Node = Block | str | None  # a block, "scalar", or None when unsure


@functools.cache
def _patterns(col: int) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """For column ``col``: a map's end, a sequence's end, a row that is not an item, an item row."""
    row = rf"\n {{{col}}}(?:[^ \n#-]|-[^ \t\n])"  # a row at the column that is not an item
    shallower = rf"\n {{0,{col - 1}}}[^ \n#]"
    return (
        re.compile(shallower) if col else _NEVER,
        re.compile(rf"\n(?: {{0,{col - 1}}}[^ \n#]| {{{col}}}(?:[^ \n#-]|-[^ \t\n]))") if col else re.compile(row),
        re.compile(rf"\n {{{col}}}(?=[^ \n#-]|-[^ \t\n])"),
        re.compile(rf"\n {{{col}}}-(?=[ \t\n]|$)"),
    )


@functools.lru_cache(maxsize=4096)
def _key_row(col: int, key: str) -> re.Pattern[str]:
    """A row at column ``col`` holding ``key:`` (plain, single- or double-quoted)."""
    plain, single, double = re.escape(key), re.escape(key.replace("'", "''")), re.escape(key)
    return re.compile(rf"\n( {{{col}}})(?:{plain}|'{single}'|\"{double}\")[ \t]*:(?:[ \t]+|$)", re.MULTILINE)


def _is_item(text: str, pos: int) -> bool:
    return text.startswith("-", pos) and (pos + 1 == len(text) or text[pos + 1] in " \t\n")


def _block_at(text: str, pos: int, col: int) -> Node:
    """The node whose first token is at offset ``pos`` (column ``col``): a block, "scalar", or None."""
    if _is_item(text, pos):
        return "seq", col, pos
    if text[pos] in _COMPLEX:
        return None
    return ("map", col, pos) if _KEY.match(text, pos) else "scalar"


def _value(text: str, after: int, owner: int, compact: bool) -> tuple[Node, int] | None:
    """The node after ``key:`` or ``-`` (``after`` just past it) and its offset; None: null on the entry's row.

    On a later row the node must be deeper than ``owner`` (or, after a key, a ``-`` at
    ``owner``: a compact sequence).
    """
    eol = text.find("\n", after)
    eol = len(text) if eol < 0 else eol
    rest = text[after:eol]
    stripped = rest.lstrip(" ")
    if stripped and stripped[0] != "#":
        at = after + len(rest) - len(stripped)
        return _block_at(text, at, at - text.rfind("\n", 0, at) - 1), at
    nxt = _NEXT.search(text, eol)
    if nxt is None:
        return None
    ind, at = len(nxt.group(1)), nxt.end()
    if ind > owner or (compact and ind == owner and _is_item(text, at)):
        return _block_at(text, at, ind), at
    return None


def _child(text: str, block: Block, part: str | int) -> tuple[Node, int] | str | None:
    """(child node, offset of its line's token), "absent", or None when unsure."""
    kind, col, pos = block
    map_end, seq_end, key_row, item_row = _patterns(col)
    eol = text.find("\n", pos)
    eol = len(text) if eol < 0 else eol
    if kind == "seq":
        if not isinstance(part, int):
            return "absent"
        if part:
            end = seq_end.search(text, eol)
            stop = end.start() if end else len(text)
            found = None
            for found in item_row.finditer(text, eol, stop):  # noqa: B007 - the last match is what is kept
                part -= 1
                if not part:
                    break
            if part or found is None:
                return "absent"
            pos = found.end() - 1
        value = _value(text, pos + 1, col, False)
        return ("scalar", pos) if value is None else value
    key = str(part)
    found = _KEY.match(text, pos)
    if found is None:
        return None
    if found[found.lastindex or 0].rstrip() != key:
        # the key's row, if the map has not ended before it (no scan to the map's end when it is found early)
        found = _key_row(col, key).search(text, eol)
        if found is None or map_end.search(text, eol, found.start()) is not None:
            return "absent"
        pos = found.end(1)
    value = _value(text, found.end(), col, True)
    return (value[0] if value else "scalar"), pos


def line_of(
    text: str, parts: tuple[str | int, ...], seen: dict[tuple[str | int, ...], Any] | None = None
) -> int | None:
    """1-based line (in ``text``) of the deepest node ``parts`` reaches from the document's first node.

    ``text`` is the document with a "\n" before its first line; None when unsure. ``seen``
    memoises the steps of earlier paths into the same text (findings share prefixes).
    """
    seen = {} if seen is None else seen
    step = seen.get(())
    if step is None:
        first = _NEXT.search(text)
        step = seen[()] = None if first is None else (_block_at(text, first.end(), len(first.group(1))), first.end())
    if step is None:
        return None
    node, pos = step
    for i, part in enumerate(parts):
        if node is None:
            return None
        if isinstance(node, str):  # "scalar": nothing below it to walk
            break
        key = parts[: i + 1]
        child = seen.get(key)
        if child is None:
            child = seen[key] = _child(text, node, part)
        if child is None:
            return None
        if isinstance(child, str):  # "absent": the deepest node found is the answer
            break
        node, pos = child
    return text.count("\n", 0, pos)


def _spanning(lined: str, found: re.Match[str], rows: _Rows) -> tuple[int, int] | bool:
    """Whether a quoted scalar or flow collection opened at a value position may go on to the next line.

    False when it does not (or is no scalar: inside a plain scalar, a comment or a block
    scalar, quotes and brackets are just text); ``(start, end)`` for a quoted scalar that
    continues on later lines and is closed there with nothing but a comment after it (the
    offsets of its opening quote and of the end of its closing line); True otherwise.
    """
    at = found.start()
    if lined[at - 1] not in ": -\n" or fastyaml.in_comment(lined, at):
        return False
    end = lined.find("\n", at)
    end = len(lined) if end < 0 else end
    while True:
        if lined[at] in "[{":
            rest = lined[at:end]
            if " #" in rest:  # a comment may follow the closer (or the "#" is inside the collection: be careful)
                rest = rest[: rest.rindex(" #")]
            rest = rest.rstrip()
            if len(rest) > 1 and rest[-1] in "]}":
                return False
            break
        close = _quote_end(lined, at, end)
        if close is None:
            return not rows.in_block_scalar(at) and _continued(lined, at)
        after = _VALUE_OPENER.search(lined, close + 1, end)  # "key": "value" - a second quoted scalar
        if after is None:
            return False
        at = after.start()
    return not rows.in_block_scalar(at)


def _continued(lined: str, at: int) -> tuple[int, int] | bool:
    """The span of the quoted scalar opened at ``at`` that closes on a later line, or True when unsure."""
    close = _quote_end(lined, at, len(lined))
    if close is None:
        return True
    end = lined.find("\n", close)
    end = len(lined) if end < 0 else end
    tail = lined[close + 1 : end].strip(" ")
    return (at, end) if not tail or tail.startswith("#") else True


def walkable(text: str, plain: bool = False) -> str | None:
    """``"\n" + text`` for :func:`line_of`, or None when the document leaves the block subset it reads.

    Not when a flow collection may span lines (its next lines can sit at any column), nor
    with anchors, tags, complex keys, tabs or odd line breaks. A quoted scalar that spans
    lines keeps its first line; its later lines are blanked (their line breaks kept), since
    they may sit at any column but never hold a node of their own.
    """
    if not (plain or fastyaml.plain_syntax(text)):
        return None
    lined = "\n" + text
    spans: list[tuple[int, int]] = []
    rows = _Rows(lined)
    for found in _OPENED.finditer(lined):
        if spans and found.start() < spans[-1][1]:
            continue  # inside the quoted scalar blanked just before
        span = _spanning(lined, found, rows)
        if span is True:
            return None
        if span:
            spans.append(span)
    if not spans:
        return lined
    out, last = [], 0
    for start, end in spans:
        eol = lined.find("\n", start)
        out.append(lined[last:eol])
        out.append("\n" * lined.count("\n", eol, end))
        last = end
    out.append(lined[last:])
    return "".join(out)


def _quote_end(lined: str, at: int, end: int) -> int | None:
    """Offset of the quote closing the scalar opened at ``at``, if it closes before ``end``."""
    quote, i = lined[at], at + 1
    while True:
        j = lined.find(quote, i, end)
        if j < 0:
            return None
        if quote == "'":
            if lined.startswith("'", j + 1):
                i = j + 2  # '' is an escaped quote
                continue
            return j
        k = j - 1
        while lined[k] == "\\":
            k -= 1
        if (j - 1 - k) % 2 == 0:  # an even number of backslashes before it: not escaped
            return j
        i = j + 1


_INDICATOR_AT_EOL = re.compile(r"[|>][-+0-9]*[ \t]*(?:#[^\n]*)?$", re.MULTILINE)  # _BLOCK_INDICATOR, per line


@functools.lru_cache(maxsize=256)
def _row_at_most(indent: int) -> re.Pattern[str]:
    """A row with content (not blank, not a comment) indented ``indent`` columns or fewer."""
    return re.compile(rf"\n {{0,{indent}}}[^ \n#]")


class _Rows:
    """Which rows of a document lie in the text of a ``|``/``>`` block scalar (a script, say).

    A row belongs to the block scalar of the nearest row above it that is shallower and ends
    with a block-scalar indicator, through ever shallower rows (blank and comment rows
    skipped); that is, when a row of its chain of parents (each the nearest shallower row
    above) ends with one. Equivalently, it lies after a row with content that ends with an
    indicator and before the next row with content as shallow as that one: the rows ending
    with one are few, so each such span is found by two searches, not by a walk over every
    row (tests/lint/test_textlocate.py checks it against that walk on every row).
    """

    __slots__ = ("lined", "_spans")

    def __init__(self, lined: str) -> None:
        self.lined = lined
        self._spans: list[tuple[int, int]] | None = None

    def _scan(self) -> list[tuple[int, int]]:
        lined, spans = self.lined, []
        for found in _INDICATOR_AT_EOL.finditer(lined):
            start = lined.rfind("\n", 0, found.start())
            row = lined[start + 1 : found.start()]
            content = row.lstrip(" ")
            if content.startswith("#"):
                continue  # a comment row is nobody's parent
            indent = len(row) - len(content)
            end = _row_at_most(indent).search(lined, found.end())
            spans.append((found.end(), end.start() if end else len(lined)))
        return spans

    def in_block_scalar(self, at: int) -> bool:
        """Whether offset ``at`` (on a row with content) is in the text of a block scalar."""
        if self._spans is None:
            self._spans = self._scan()
        row = self.lined.rfind("\n", 0, at) + 1
        return any(after < row <= end for after, end in self._spans)


def safe(text: str, plain: bool = False) -> bool:
    """Whether :func:`line_of` may read the document text (see :func:`walkable`)."""
    return walkable(text, plain) is not None
