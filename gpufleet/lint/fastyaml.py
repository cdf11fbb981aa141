"""The linter's fast YAML path: yaml-rs (Rust) where it must agree with PyYAML, else ``None``.

Called by :mod:`gpufleet.lint.loader` before its PyYAML path. yaml-rs parses about
ten times faster than libyaml through PyYAML, but it reads YAML 1.2 while Kubernetes
(sigs.k8s.io/yaml) and the rest of gpufleet read YAML 1.1, and it gives no positions.
:func:`documents` therefore reads a document with PyYAML whenever the two parsers could
disagree (:func:`risky` names the reason), and returns ``None`` (the caller then reads the
whole text with PyYAML and its nodes, exactly as before) when either parser refuses it:

- plain scalars that YAML 1.1 resolves differently: ``yes/no/on/off`` (booleans in 1.1),
  ``0755`` (octal 493 in 1.1, 755 in 1.2), ``0o17``, ``1:30`` (sexagesimal 90 in 1.1),
  ``1e3`` and ``+.5`` (floats in 1.2 only), dates and timestamps, ``=`` (an error in
  PyYAML), ``.nan``/``.inf`` spellings - found by a cheap regex over the text, which
  may over-match (a fall-back costs time, never correctness);
- merge keys ``<<``, anchors, aliases and tags (``&a``, ``*a``, ``!tag``), complex
  keys (``? ``), directives (``%YAML``), ``...`` document ends, content on a ``---`` line;
- tabs, a byte-order mark, line breaks other than ``\n`` (YAML 1.1 also breaks lines at
  ``\r``, NEL and U+2028/9) and characters PyYAML refuses (non-printable);
- anything yaml-rs refuses, including duplicate keys (PyYAML keeps the last one) and
  malformed YAML (PyYAML then reports GANG000 with its line, as before);
- a ``|``/``>`` block scalar in a text without a final line break (yaml-rs adds one).

Each document between ``---`` lines is parsed on its own, which gives the line its
first node starts on (what PyYAML's node ``start_mark`` says). The differential tests
in tests/lint/test_fastyaml.py check the list against both parsers.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

try:  # optional: without yaml-rs every text takes the PyYAML path
    import yaml_rs
except ImportError:  # pragma: no cover - exercised only where yaml-rs is not installed
    yaml_rs = None

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
PARSER = "yaml-rs" if yaml_rs is not None else "PyYAML"

# Each pattern starts with a character class, so that ``re`` skips ahead fast, then looks
# behind for a character a plain scalar can follow; searched in "\n" + text (the first line too).
_AFTER = r"(?<=[\s\[{,:].)"  # the character before the token's first one
_END = r"(?=[ \t]*(?:$|#|:(?:[ \t]|$)|[,\]}]))"
# yes, no, on, off (any case), y, n, = ... after their first character:
_WORD_REST = r"(?:(?<=[yY])(?:es|ES)?|(?<=[nN])[oO]?|(?<=[oO])(?:[nN]|ff|FF)|(?<==))" + _END
# 0755, 0o17, 0b1, 1_000, 1:30, 1e3, +.5, .inf, .nan, 2024-01-01, ... after their first character:
_NUMBER_REST = (r"(?:(?<=0)[0-9_oObBxX]|(?<=\+)(?:\.|0[0-9_oO]|[0-9][0-9_.]*[:_eE])|(?<=-)(?:0[0-9_oO]|\.|[0-9][0-9_.]*[:_eE])"
                r"|(?<=\.)[0-9a-zA-Z]|(?<=[0-9])(?:[0-9_.]*[:_eE]|[0-9]{3}-))")
_NODE_PROPERTY = re.compile(r"[&*!](?<=[\s\[{,].)\S")  # anchor, alias, tag
# All three in one pass (what :func:`risky` runs); one leading character class to skip ahead by.
_RISKY_TOKEN = re.compile(rf"[yYnNoO=+\-.0-9&*!]{_AFTER}(?:(?<=[yYnNoO=]){_WORD_REST}|(?<=[-+.0-9]){_NUMBER_REST}"
                          r"|(?<=[&*!])\S)", re.MULTILINE)
_COMPLEX_KEY = re.compile(r"\?(?<=[\s\[{,]\?)(?=\s|\Z)")
_LINE_START = re.compile(r"\n(?:%|\.\.\.(?=\s|\Z)|---[ \t]+[^\s#])")  # directive, document end, content after ---
_ODD_CHARS = ("<<", "\t", "\r", "\x85", "\u2028", "\u2029", "\ufeff")  # merge key, tab, line breaks, BOM
_NON_PRINTABLE = re.compile(r"[^\n\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_SYNTAX = (_COMPLEX_KEY, _LINE_START)
_BLOCK_SCALAR = re.compile(r"[|>][-+0-9]*[ \t]*(?:#.*)?$", re.MULTILINE)
_MARKER = re.compile(r"^---(?:[ \t]|$)", re.MULTILINE)
_CONTENT = re.compile(r"^[ \t]*[^ \t\r\n#]", re.MULTILINE)


def _in_comment(lined: str, at: int) -> bool:
    """Whether position ``at`` follows a ``#`` comment start on its line (with no quote before it)."""
    line = lined[lined.rfind("\n", 0, at) + 1:at]
    hash_at = line.find("#")
    return hash_at >= 0 and (hash_at == 0 or line[hash_at - 1] in " \t") and not any(q in line[:hash_at] for q in "'\"")


def outside_comments(pattern: re.Pattern[str], lined: str) -> re.Match[str] | None:
    """The first match of ``pattern`` outside comments."""
    return next((m for m in pattern.finditer(lined) if not _in_comment(lined, m.start())), None)


def _syntax(lined: str, patterns: tuple[re.Pattern[str], ...] = _SYNTAX) -> re.Match[str] | str | None:
    for odd in _ODD_CHARS:
        if odd in lined:
            return odd
    for pattern in patterns:
        found = outside_comments(pattern, lined)
        if found:
            return found
    return None if lined.isascii() else _NON_PRINTABLE.search(lined)


def risky(text: str) -> str | None:
    """Why ``text`` may read differently under YAML 1.1 and 1.2 (or has no fast path), else None."""
    lined = "\n" + text
    found = _syntax(lined)
    if isinstance(found, str):
        return f"syntax {found!r}"
    found = found or outside_comments(_RISKY_TOKEN, lined)
    if found:
        return f"token {found.group(0).strip()!r} at line {lined.count(chr(10), 0, found.start() + 1)}"
    if text and not text.endswith("\n") and _BLOCK_SCALAR.search(text):
        return "a block scalar in a text without a final line break (yaml-rs keeps a break PyYAML drops)"
    return None


def plain_syntax(text: str) -> bool:
    """No anchors, aliases, tags, merge or complex keys, directives, tabs or odd line breaks."""
    return _syntax("\n" + text, (_NODE_PROPERTY, *_SYNTAX)) is None


def split(text: str) -> list[tuple[int, str]]:
    """``(0-based line of the chunk's first character, chunk)`` per ``---``-separated part."""
    chunks, start, line = [], 0, 0
    for marker in _MARKER.finditer(text):
        chunks.append((line, text[start:marker.start()]))
        line += text.count("\n", start, marker.start())
        start = marker.start()
    chunks.append((line, text[start:]))
    return chunks


def _value(body: str) -> Any:
    """One document's value: yaml-rs unless :func:`risky` objects, then PyYAML (values only, C loader)."""
    if risky(body) is None:
        return yaml_rs.loads(body)
    return yaml.load(body, Loader=_Loader)


def documents(text: str) -> list[tuple[Any, int, int, str]] | None:
    """``(value, 1-based line of its first node, 0-based line its text starts on, its text)`` per document.

    Documents :func:`risky` objects to are read by PyYAML alone (still without nodes).
    Empty documents are left out, as the loader leaves PyYAML's null documents out. None
    when yaml-rs is absent, a document is null (or empty in helm output, whose ``# Source:``
    comments are placed by document lines), or either parser refuses one: the caller must then read the whole text with PyYAML and its nodes.
    """
    if yaml_rs is None:
        return None
    found: list[tuple[Any, int, int, str]] = []
    for first_line, chunk in split(text):
        body = chunk[3:] if chunk.startswith("---") else chunk
        content = _CONTENT.search(body)
        if content is None:
            if chunk.startswith("---") and "# Source: " in text:
                return None  # an explicit empty document: PyYAML yields a null node, whose line helm's comments need
            continue
        try:
            value = _value(body)
        except Exception:  # noqa: BLE001 - yaml-rs raises several types; PyYAML decides what is wrong
            return None
        if value is None:
            return None
        found.append((value, first_line + body.count("\n", 0, content.start()) + 1, first_line, body))
    return found
