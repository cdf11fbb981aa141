"""A YAML syntax error in a person's words: where, what is wrong, and how to fix it.

The parser (libyaml, or PyYAML's own) says "did not find expected '-' indicator" or "could not
find expected ':'": true, but in its grammar's words. :func:`explain` turns the common
complaints into what the line does wrong (naming the line where the list, mapping or quote it
belongs to starts, the parser's ``context_mark``) and a fix one can act on; others keep the
parser's words with a general fix. :func:`issue` is the :class:`~gpufleet.yamlin.errors.Issue`
every reader of a single document reports (the model loader, ``diff --git``, the CRD reader),
placed at ``file:line:column`` as every other issue; the linter's ``GANG000`` uses :func:`explain`.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from gpufleet.yamlin.errors import Issue

TAB_FIX = "indent with spaces: YAML does not allow tabs in indentation (replace the tab with spaces)"
GENERAL_FIX = "check the indentation (spaces only) and the quoting of this line and the one before"


@dataclass(frozen=True)
class Syntax:
    problem: str
    """What is wrong, in plain words."""
    fix: str
    known: bool
    """Whether the complaint was put in plain words (else ``problem`` is the parser's own)."""
    at: tuple[int, int] | None
    """1-based (line, column) of the error, when the parser says."""


def _mark(exc: yaml.YAMLError, name: str) -> tuple[int, int] | None:
    mark = getattr(exc, name, None)
    return (mark.line + 1, mark.column + 1) if mark is not None else None


def _char_at(text: str, line: int, column: int) -> str:
    lines = text.split("\n", line)
    return lines[line - 1][column - 1 : column] if line - 1 < len(lines) else ""


def _plain(problem: str, at: tuple[int, int], start: int, text: str) -> tuple[str, str] | None:
    """(what is wrong, fix) for the complaints people meet most, or None. ``start``: where the enclosing node starts."""
    line = at[0]
    char = _char_at(text, *at)
    if char == "\t" or "tab" in problem:
        return f"a tab character at column {at[1]}", TAB_FIX
    if "expected '-' indicator" in problem:
        return (
            f"line {line} is not an item of the list that starts at line {start} (each item starts with '- ' "
            "at the list's indentation)",
            "indent the line further to belong to the item above, start it with '- ' to make it an item, or "
            "indent it less to end the list",
        )
    if "expected key" in problem:
        return (
            f"line {line} is neither a key of the mapping that starts at line {start} nor indented under one",
            "line it up with the other keys of that mapping (spaces, same column) or indent it under its key",
        )
    if "expected ':'" in problem:
        return (
            f"line {start} has no ':' after its key",
            "write it as 'key: value', or as a list item '- value'",
        )
    if "mapping values are not allowed" in problem:
        return (
            "a ': ' where no new key can start: a value holding ': ', or a key indented under a plain value",
            "quote the value that holds ': ' (\"a: b\"), or line the key up with its siblings",
        )
    if "cannot start any token" in problem:
        return (
            f"a value at line {line} starts with {char!r}, which YAML reserves",
            f"quote the value: '{char}...'",
        )
    if "end of stream" in problem and start:
        return f"the quoted text that starts at line {start} is never closed", "close the quote"
    for close, what in (("]", "list"), ("}", "mapping")):
        if f"',' or '{close}'" in problem:
            opening = "[" if close == "]" else "{"
            return (
                f"the '{opening}' {what} that starts at line {start} is not closed, or two of its entries have no "
                "',' between them",
                f"close it with '{close}', or add the missing ','",
            )
    if "undefined alias" in problem:
        return (
            f"a value at line {line} starts with '*', which names an anchor ('&name') defined nowhere before it",
            "quote the value if the '*' is text, or define the anchor first",
        )
    if "expected <block end>" in problem:
        return (
            f"line {line} is indented so that it fits neither the block above nor a new one",
            "line it up with its siblings (spaces, same column)",
        )
    return None


def _reader(exc: yaml.YAMLError, text: str) -> Syntax | None:
    """A character YAML does not read at all (a control character: a binary or damaged file), where it is."""
    position, character = getattr(exc, "position", None), getattr(exc, "character", None)
    if not isinstance(position, int) or not isinstance(character, int) or position > len(text):
        return None
    before = text[:position]
    at = (before.count("\n") + 1, position - (before.rfind("\n") + 1) + 1)
    return Syntax(
        f"a control character (U+{character:04X}) YAML does not allow",
        "remove it; a model or manifest is plain text (is this the file you meant?)",
        True,
        at,
    )


def explain(exc: yaml.YAMLError, text: str) -> Syntax:
    """``exc`` (raised reading ``text``) in plain words, where the parser says it is."""
    if isinstance(exc, yaml.reader.ReaderError):
        found = _reader(exc, text)
        if found is not None:
            return found
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    at = _mark(exc, "problem_mark") or _mark(exc, "context_mark")
    if "expected ':'" in problem:  # the parser stops on the line after the key that lacks it
        at = _mark(exc, "context_mark") or at
    start = (_mark(exc, "context_mark") or (0, 0))[0]
    plain = _plain(problem, at, start, text) if at is not None else None
    if plain is None:
        context = getattr(exc, "context", None)
        return Syntax(f"{problem} ({context})" if context else problem, GENERAL_FIX, False, at)
    return Syntax(plain[0], plain[1], True, at)


def issue(exc: yaml.YAMLError, text: str) -> Issue:
    """The issue of a document that is not valid YAML: ``file:line:column: malformed YAML: ... (fix: ...)``."""
    found = explain(exc, text)
    return Issue("" if found.at else "(document)", f"malformed YAML: {found.problem}", found.fix, at=found.at)
