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
  keys (``? ``, empty keys, collections that may be keys), indicators PyYAML refuses
  inside flow collections (``[|]``), a block scalar as the whole document, directives (``%YAML``), ``...`` document ends, content on a ``---`` line;
- tabs, a byte-order mark, line breaks other than ``\n`` (YAML 1.1 also breaks lines at
  ``\r``, NEL and U+2028/9) and characters PyYAML refuses (non-printable);
- anything yaml-rs refuses, including duplicate keys (PyYAML keeps the last one) and
  malformed YAML (PyYAML then reports GANG000 with its line, as before);
- dates and timestamps: yaml-rs is called with ``parse_datetime=False`` (with True it turns
  even *quoted* ``"2024-01-01"`` into a date), so plain ones are among the risky scalars;
- an empty ``|``/``>`` block scalar at the end of a document (yaml-rs reads a line break,
  PyYAML nothing). (One that runs to the end of a text without a final line break is read
  by yaml-rs and its extra line break dropped: :func:`_unterminated`.)

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
    yaml_rs = None  # type: ignore[assignment]  # the module, or None where yaml-rs is not installed

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
PARSER = "yaml-rs" if yaml_rs is not None else "PyYAML"

# Each pattern starts with a character class, so that ``re`` skips ahead fast, then looks
# behind for a character a plain scalar can follow; searched in "\n" + text (the first line too).
_AFTER = r"(?<=[\s\[{,:].)"  # the character before the token's first one
_END = r"(?=[ \t]*(?:$|#|:(?:[ \t]|$)|[,\]}]))"
# yes, no, on, off (any case), y, n, = ... after their first character:
_WORD_REST = r"(?:(?<=[yY])(?:es|ES)?|(?<=[nN])[oO]?|(?<=[oO])(?:[nN]|ff|FF)|(?<==))" + _END
# 0755, 0o17, 0b1, 1_000, 1:30, 1e3, +.5, .inf, .nan, 2024-01-01, ... after their first character:
_NUMBER_REST = (
    r"(?:(?<=0)[0-9_oObBxX]|(?<=\+)(?:\.|0[0-9_oO]|[0-9][0-9_.]*[:_eE])|(?<=-)(?:0[0-9_oO]|\.|[0-9][0-9_.]*[:_eE])"
    r"|(?<=\.)[0-9a-zA-Z]|(?<=[0-9])(?:[0-9_.]*[:_eE]|[0-9]{3}-))"
)
# Words, numbers, anchors/aliases/tags in one pass; one leading character class to skip ahead by.
_RISKY_TOKEN = re.compile(
    rf"[yYnNoO=+\-.0-9&*!]{_AFTER}(?:(?<=[yYnNoO=]){_WORD_REST}|(?<=[-+.0-9]){_NUMBER_REST}"
    r"|(?<=[&*!])\S)",
    re.MULTILINE,
)
_ODD_CHARS = ("<<", "\t", "\r", "\x85", "\u2028", "\u2029", "\ufeff")  # merge key, tab, line breaks, BOM
# Syntax where YAML 1.1 (PyYAML) and 1.2 (yaml-rs) part ways or the text walk cannot follow,
# in one pass with one leading character class (``re`` is slow on patterns without one).
_SYNTAX = re.compile(
    r"[&*!?:\[{,\]}\n]"
    r"(?:(?<=[&*!])(?<=[\s\[{,].)\S"  # an anchor, alias or tag
    r"|(?<=[?:])(?<=[\s\[{,].)(?=[\s,\[\]{}]|\Z)"  # "? key", or ": value" with an empty key
    r"|(?<=:)(?=[,\]}])|(?<=[\[{,])[ \t]*[?:]"  # "[a:]", "[:a]", "[?a]": a colon or ? next to a flow indicator
    r"|(?<=\n)(?:%|\.\.\.(?=\s|\Z)|---[ \t]+[^\s#])"  # a directive, a document end, content after ---
    r"|(?<=[\[{,])[ \t]*[|>@`%]"  # a block-scalar or reserved indicator inside [...] or {...}
    r"|(?<=[{,])[ \t]*[\[{]|(?<=[\]}])[ \t]*:(?=[\s,\[\]{}]|\Z)"  # a collection that may be a key
    r")"
)
# What every match of _SYNTAX needs in an ASCII text with no tab, carriage return or control
# character (so its only whitespace is " " and "\n"): one of these substrings, or a flow
# indicator followed by one of the characters it pairs with. Substring tests run at memchr
# speed; _SYNTAX's leading class matches every ":" and line break, so it is searched only
# when this finds something (tests/lint/test_fastyaml.py checks the implication).
_MAY_SYNTAX = ("&", "*", "!", "?", "%", " :", "\n:", ":,", ":]", ":}", "\n...", "\n---")
_FLOW_PAIR = re.compile(r"[\[\]{},](?:(?<=[\[{,]) *[:|>@`%\[{]|(?<=[\]}]) *:)")  # one leading class, as for _SYNTAX
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # what PyYAML refuses in ASCII text (tab and \r: _ODD_CHARS)
_NON_PRINTABLE = re.compile(r"[^\n\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_BLOCK_SCALAR = re.compile(r"[|>][-+0-9]*[ \t]*(?:#.*)?$", re.MULTILINE)
_COMMENT_LINES = re.compile(r"\n[ \t]*#[^\n]*")
_MARKER = re.compile(r"^---(?:[ \t]|$)", re.MULTILINE)
_MARKER_CONTENT = re.compile(r"[ \t]+[^\s#]")
_CONTENT = re.compile(r"^[ \t]*[^ \t\r\n#]", re.MULTILINE)


def in_comment(lined: str, at: int) -> bool:
    """Whether position ``at`` follows a ``#`` comment start on its line (with no quote before it)."""
    line = lined[lined.rfind("\n", 0, at) + 1 : at]
    hash_at = line.find("#")
    return hash_at >= 0 and (hash_at == 0 or line[hash_at - 1] in " \t") and not any(q in line[:hash_at] for q in "'\"")


def outside_comments(pattern: re.Pattern[str], lined: str) -> re.Match[str] | None:
    """The first match of ``pattern`` outside comments."""
    if pattern.search(lined) is None:
        return None
    return next((m for m in pattern.finditer(lined) if not in_comment(lined, m.start())), None)


def _syntax(lined: str, uncommented: str | None = None) -> re.Match[str] | str | None:
    """Odd characters anywhere (comments too: PyYAML's reader checks every character), then syntax outside comments.

    ``uncommented`` is ``lined`` without its whole-line comments, when the caller has it.
    """
    for odd in _ODD_CHARS:
        if odd in lined:
            return odd
    ascii_text = lined.isascii()
    control = _CONTROL.search(lined) if ascii_text else _NON_PRINTABLE.search(lined)
    if control:
        return control
    text = _COMMENT_LINES.sub("", lined) if uncommented is None else uncommented
    if ascii_text and not may_have_syntax(text):
        return None
    return outside_comments(_SYNTAX, text)


def may_have_syntax(text: str) -> bool:
    """False only when :data:`_SYNTAX` cannot match ``text`` (ASCII, no tab, carriage return or control character)."""
    return any(part in text for part in _MAY_SYNTAX) or _FLOW_PAIR.search(text) is not None


def risky(text: str) -> str | None:
    """Why ``text`` may read differently under YAML 1.1 and 1.2 (or has no fast path), else None."""
    lined = "\n" + text
    # whole-line comments say nothing (and in a block scalar such a line is plain text)
    uncommented = _COMMENT_LINES.sub("", lined) if "#" in lined else lined
    found = _syntax(lined, uncommented)
    if isinstance(found, str):
        return f"syntax {found!r}"
    found = found or outside_comments(_RISKY_TOKEN, uncommented)
    if found:
        return f"token {found.group(0).strip()!r}"
    stripped = text.rstrip()
    if _BLOCK_SCALAR.search(stripped, stripped.rfind("\n") + 1):
        return "an empty block scalar at the end of the text (yaml-rs reads a line break, PyYAML nothing)"
    last = text[text.rfind("\n") + 1 :]
    if last and not last.strip() and _BLOCK_SCALAR.search(text):
        return "a block scalar before a last line of blanks with no line break (yaml-rs reads one more line break)"
    return None


def plain_syntax(text: str) -> bool:
    """No anchors, aliases, tags, merge or complex keys, directives, tabs or odd line breaks."""
    return _syntax("\n" + text) is None


def split(text: str) -> list[tuple[int, str, bool]]:
    """``(0-based line the part starts on, its text, whether that text follows a ---)`` per part.

    The text of a part after a marker starts just after its ``---`` (on the marker's line).
    """
    parts, start, line, marked = [], 0, 0, False
    for marker in _MARKER.finditer(text):
        parts.append((line, text[start : marker.start()], marked))
        line += text.count("\n", start, marker.start())
        start, marked = marker.start() + 3, True
    parts.append((line, text[start:], marked))
    return parts


def _value(body: str) -> tuple[Any, bool]:
    """One document's value and whether yaml-rs read it (else PyYAML did, values only, C loader)."""
    if risky(body) is not None:
        return yaml.load(body, Loader=_Loader), False
    if body.endswith("\n") or not _BLOCK_SCALAR.search(body):
        return yaml_rs.loads(body, parse_datetime=False), True  # True would turn quoted dates into dates too
    return _unterminated(body), True


def _unterminated(body: str) -> Any:
    """A text without a final line break that has block scalars, read as PyYAML reads it.

    A block scalar running to the end of such a text has no final line break for PyYAML;
    yaml-rs adds one. Read the text with its line break, then, when the last line lies in a
    block scalar that is not ``|-``/``>-``, drop that break from the last value.
    """
    value = yaml_rs.loads(body + "\n", parse_datetime=False)
    chomping = _outermost_block(body)
    if chomping is None or chomping == "-":
        return value
    parent, key, node = None, None, value
    while isinstance(node, (dict, list)) and node:
        parent, key = node, (next(reversed(node)) if isinstance(node, dict) else len(node) - 1)
        node = node[key]  # type: ignore[index]  # key is this dict's last key or this list's last index
    if not (isinstance(node, str) and node.endswith("\n")):
        return value
    if parent is None:
        return node[:-1]
    parent[key] = node[:-1]
    return value


def _outermost_block(body: str) -> str | None:
    """The chomping (``-``, ``+`` or ``""``) of the outermost block scalar the last line is in, or None."""
    end = body.rfind("\n")
    last = body[end + 1 :]
    shallower, found = len(last) - len(last.lstrip(" ")), None
    while shallower > 0 and end >= 0:
        begin = body.rfind("\n", 0, end)
        row, end = body[begin + 1 : end], begin
        stripped = row.lstrip(" ")
        if not stripped or stripped[0] == "#":
            continue
        indent = len(row) - len(stripped)
        if indent < shallower:
            indicator = _BLOCK_SCALAR.search(row)
            if indicator:
                found = (
                    "-"
                    if "-" in indicator.group(0).split("#")[0]
                    else "+"
                    if "+" in indicator.group(0).split("#")[0]
                    else ""
                )
            shallower = indent
    return found


def documents(text: str) -> list[tuple[Any, int, int, str, bool]] | None:
    """``(value, 1-based line of its first node, 0-based line its text starts on, its text, by yaml-rs)`` per document.

    "By yaml-rs" also means :func:`risky` found nothing, so the text has none of the syntax
    :func:`plain_syntax` looks for.

    Documents :func:`risky` objects to are read by PyYAML alone (still without nodes).
    Empty documents are left out, as the loader leaves PyYAML's null documents out. None
    when yaml-rs is absent, a document is null (or empty in helm output, whose ``# Source:``
    comments are placed by document lines), or either parser refuses one: the caller must then read the whole text with PyYAML and its nodes.
    """
    if yaml_rs is None:
        return None
    found: list[tuple[Any, int, int, str, bool]] = []
    for first_line, body, marked in split(text):
        if marked and _MARKER_CONTENT.match(body):
            return None  # content on the "---" line: YAML 1.1 and 1.2 accept different things there
        content = _CONTENT.search(body)
        if content is None:
            if marked and "# Source: " in text:
                return None  # an explicit empty document: PyYAML yields a null node, whose line helm's comments need
            continue
        if body[content.end() - 1] in "|>":
            return None  # a block scalar as the document: YAML 1.1 wants its text indented, 1.2 does not
        try:
            value, fast = _value(body)
        except Exception:  # noqa: BLE001 - yaml-rs raises several types; PyYAML decides what is wrong
            return None
        if value is None:
            return None
        found.append((value, first_line + body.count("\n", 0, content.start()) + 1, first_line, body, fast))
    return found
