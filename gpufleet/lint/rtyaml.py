"""A manifest file's documents as ruamel.yaml round-trip trees, and a changed document back as text.

Called by :mod:`gpufleet.lint.fix` (``gpufleet lint --fix``/``--diff``). :func:`split` cuts
the text at its document markers (``---`` and ``...`` at the start of a line: YAML forbids
them inside any scalar, so the cut never falls inside a value) and keeps every piece's
text, so a document nothing changes is written back byte for byte. :func:`load` reads one
document with comments, key order, quotes and flow style; :func:`dump` prints a changed
one with the indentation of the original (the first layout of maps and lists under which
ruamel.yaml prints the unchanged document exactly as written). Where none does (a multi-line
flow list with comments, say), :func:`merge` writes only the lines the change adds or
alters into the text as written. :func:`plain` is the document as the API server would
receive it (plain dicts, lists and scalars) for the mutator.
"""

from __future__ import annotations

import difflib
import io
import re
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

_MARKER = re.compile(r"^(?:---|\.\.\.)(?=[ \t]|$)")
_CONTENT = re.compile(r"^[ \t]*[^#\s]", re.MULTILINE)
LAYOUTS = tuple(
    dict.fromkeys((m, off + step, off) for m in (2, 4, 3) for step in (2, m) for off in (0, 2, 4, 1, 3) if off <= m + 2)
)
"""(mapping, sequence, offset) indentations tried, most common first."""


class NotFixable(ValueError):
    """A file this module will not rewrite (the message says why, with its line where known)."""


@dataclass
class Piece:
    """A document marker line (or ``""``) and the text after it up to the next marker."""

    marker: str
    body: str

    @property
    def has_content(self) -> bool:
        return bool(_CONTENT.search(self.body))


def split(text: str) -> list[Piece]:
    pieces = [Piece("", "")]
    for line in text.splitlines(keepends=True):
        if _MARKER.match(line):
            if line[3:].split("#", 1)[0].strip():
                raise NotFixable(
                    f"line {text[: text.index(line)].count(chr(10)) + 1}: a document starts on its "
                    "marker line (`--- value`)"
                )
            pieces.append(Piece(line, ""))
        else:
            pieces[-1].body += line
    return pieces


def _yaml(layout: tuple[int, int, int] = LAYOUTS[0]) -> YAML:
    yaml = YAML(typ="rt", pure=True)
    yaml.preserve_quotes = True
    yaml.width = 1 << 20  # never fold a long line
    yaml.indent(mapping=layout[0], sequence=layout[1], offset=layout[2])
    return yaml


def load(body: str, line: int) -> Any:
    """One document's round-trip tree; ``line`` is where ``body`` starts in the file (for messages)."""
    try:
        return _yaml().load(body)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"line {line + mark.line}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise NotFixable(f"{where}cannot parse it as YAML ({problem})") from None


def _print(tree: Any, layout: tuple[int, int, int]) -> str:
    out = io.StringIO()
    _yaml(layout).dump(tree, out)
    return out.getvalue()


def layout_of(tree: Any, body: str) -> tuple[tuple[int, int, int], str | None]:
    """The layout to print ``tree`` with, and None when it prints back as ``body`` exactly.

    Otherwise (a multi-line flow list with comments, odd indentation...) the layout whose
    print is closest to ``body``, and that print: :func:`merge` then carries only the
    changed lines into ``body``.
    """
    best: tuple[float, tuple[int, int, int], str] | None = None
    for layout in _likely_first(body):
        printed = _print(tree, layout)
        if printed == body:
            return layout, None
        ratio = difflib.SequenceMatcher(None, printed.splitlines(), body.splitlines(), autojunk=False).ratio()
        if best is None or ratio > best[0]:
            best = (ratio, layout, printed)
    assert best is not None
    return best[1], best[2]


_BLOCK_KEY = re.compile(r"^( *)(?:- +)?[^#\s-][^#]*:[ \t]*(?:#.*)?$")
_NEXT = re.compile(r"^( *)(-( +))?\S")


def _likely_first(body: str) -> list[tuple[int, int, int]]:
    """LAYOUTS, the one the text's first nested map and first nested list suggest first (a print is costly)."""
    mapping = offset = sequence = None
    lines = body.splitlines()
    for here, below in zip(lines, lines[1:]):
        key, nxt = _BLOCK_KEY.match(here), _NEXT.match(below)
        if not key or not nxt:
            continue
        step = len(nxt.group(1)) - len(key.group(1)) - (len(here) - len(here.lstrip(" -")) - len(key.group(1)))
        if nxt.group(2) is None and mapping is None and step > 0:
            mapping = step
        elif nxt.group(2) is not None and offset is None and step >= 0:
            offset, sequence = step, step + 1 + len(nxt.group(3))
    guess = (mapping or 2, sequence or 2, offset or 0)
    return [guess, *(layout for layout in LAYOUTS if layout != guess)] if guess in LAYOUTS else list(LAYOUTS)


def dump(tree: Any, layout: tuple[int, int, int]) -> str:
    return _print(tree, layout)


def merge(body: str, base: str, printed: str) -> str | None:
    """``body`` with the lines ``printed`` adds or changes against ``base`` (a print of the same
    document before the change); None when a changed line has no counterpart in ``body``."""
    written, before, after = (
        body.splitlines(keepends=True),
        base.splitlines(keepends=True),
        printed.splitlines(keepends=True),
    )
    where: dict[int, int] = {}  # a line of base -> the same line of body
    for a, b, size in difflib.SequenceMatcher(None, before, written, autojunk=False).get_matching_blocks():
        where.update((a + k, b + k) for k in range(size))
    out = list(written)
    for tag, i1, i2, j1, j2 in reversed(difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()):
        if tag == "equal":
            continue
        if tag == "insert":
            if i1 - 1 in where:
                at = where[i1 - 1] + 1
            elif i1 in where:
                at = where[i1]
            else:
                return None
            out[at:at] = after[j1:j2]
            continue
        found = [where.get(i) for i in range(i1, i2)]
        lines = [n for n in found if n is not None]
        if len(lines) < len(found) or lines != list(range(lines[0], lines[0] + len(lines))):
            return None
        out[lines[0] : lines[-1] + 1] = after[j1:j2]
    return "".join(out)


_COMMENT = re.compile(r"(?:^|[ \t])(#.*)$", re.MULTILINE)


def comments(text: str) -> list[str]:
    """The comments of ``text`` in order (text after a `` #``; a ``#`` inside a quoted value counts too)."""
    return [m.group(1).rstrip() for m in _COMMENT.finditer(text)]


def plain(node: Any) -> Any:
    """The tree as plain JSON-like values (what kubectl sends), without ruamel's scalar types."""
    if isinstance(node, CommentedMap) or isinstance(node, dict):
        return {
            str(key) if not isinstance(key, (int, float, bool)) else key: plain(value) for key, value in node.items()
        }
    if isinstance(node, (CommentedSeq, list)):
        return [plain(item) for item in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, str):
        return str(node)
    if isinstance(node, int):
        return bool(node) if type(node).__name__ == "ScalarBoolean" else int(node)
    if isinstance(node, float):
        return float(node)
    return node
