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

# A token YAML 1.1 and 1.2 may read differently, after a character a plain scalar can follow
# (searched in "\n" + text, so the first line has one too), then where such a token ends.
_AFTER = r"(?<=[\s\[{,:])"
_WORD = r"(?:[yY](?:es|ES)?|[nN][oO]?|[oO](?:n|N|ff|FF)|On|Off|ON|OFF|NO|No|=)"
_NUMBER = (r"[-+]?(?:0[0-9_oO]|0[bBxX]|\.[0-9]|\.[a-zA-Z]|[0-9][0-9_]*[:_eE]|[0-9][0-9_]*\.[0-9_]*[eE_]"
           r"|[0-9]{4}-|\+|[0-9]+\.[0-9]*[:_])")
_END = r"(?=[ \t]*(?:$|#|:(?:[ \t]|$)|[,\]}]))"
_RISKY_SCALAR = re.compile(rf"{_AFTER}(?:{_WORD}{_END}|{_NUMBER})", re.MULTILINE)
_RISKY_SYNTAX = re.compile(
    r"<<|(?<=[\s\[{,])(?:[&*!]\S|\?(?=\s|\Z))|\n(?:%|\.\.\.(?=\s|\Z)|---[ \t]+[^\s#])|[\t\r\x85\u2028\u2029\ufeff]"
    r"|[^\n\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_BLOCK_SCALAR = re.compile(r"[|>][-+0-9]*[ \t]*(?:#.*)?$", re.MULTILINE)
_MARKER = re.compile(r"^---(?:[ \t]|$)", re.MULTILINE)
_CONTENT = re.compile(r"^[ \t]*[^ \t\r\n#]", re.MULTILINE)


def risky(text: str) -> str | None:
    """Why ``text`` may read differently under YAML 1.1 and 1.2 (or has no fast path), else None."""
    lined = "\n" + text
    for pattern, why in ((_RISKY_SYNTAX, "syntax"), (_RISKY_SCALAR, "scalar")):
        found = pattern.search(lined)
        if found:
            return f"{why} {found.group(0).strip()!r} at line {lined.count(chr(10), 0, found.start() + 1)}"
    if text and not text.endswith("\n") and _BLOCK_SCALAR.search(text):
        return "a block scalar in a text without a final line break (yaml-rs keeps a break PyYAML drops)"
    return None


def plain_syntax(text: str) -> bool:
    """No anchors, aliases, tags, merge or complex keys, directives, tabs or odd line breaks."""
    return _RISKY_SYNTAX.search("\n" + text) is None


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
    None when yaml-rs is absent, a document is empty or null, or either parser refuses
    one: the caller must then read the whole text with PyYAML and its nodes.
    """
    if yaml_rs is None:
        return None
    found: list[tuple[Any, int, int, str]] = []
    for first_line, chunk in split(text):
        body = chunk[3:] if chunk.startswith("---") else chunk
        content = _CONTENT.search(body)
        if content is None:
            if chunk.startswith("---"):
                return None  # an explicit empty document: PyYAML yields a null node there
            continue
        try:
            value = _value(body)
        except Exception:  # noqa: BLE001 - yaml-rs raises several types; PyYAML decides what is wrong
            return None
        if value is None:
            return None
        found.append((value, first_line + body.count("\n", 0, content.start()) + 1, first_line, body))
    return found
