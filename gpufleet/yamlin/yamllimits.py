"""Limits on YAML input, applied before and while PyYAML reads it: size, depth, numbers, aliases.

Called by every reader of YAML that a person or an attacker can write: the model loader
(:mod:`gpufleet.model.loader` through :mod:`gpufleet.yamlin.yamlio`), the linter
(:mod:`gpufleet.lint.loader`, :mod:`gpufleet.lint.context`) and the GANG5xx rules that
read configuration documents embedded in ConfigMaps (also in the admission webhook).
Without them a fuzzer finds, in seconds:

- YAML nested about 30,000 deep kills the process: libyaml's node composer recurses in
  C and overflows the stack (exit 139, no message). :func:`check_text` estimates the
  depth from the text alone (flow brackets outside double-quoted strings plus the
  width of the leading indentation/``-`` run of a line) *before* the parser sees it;
  when the estimate is inconclusive the parsed value is measured exactly
  (:func:`check_value`). Both refuse more than :data:`MAX_DEPTH` levels.
- ``9`` x 5,000 as a plain scalar raises Python's int-conversion ``ValueError`` (no
  position); ``1e400`` silently becomes ``inf``. :class:`Loader` reads an integer of
  more than :data:`MAX_INT_DIGITS` digits or a float that overflows as a
  :class:`BigNumber` (a ``str`` holding the text) so the reader can report it at its path.
- 13 KB of aliases expand to a million values (the "billion laughs"): PyYAML shares
  aliased values, but whoever walks them (pydantic, the rules) pays for every copy.
  :func:`check_value` refuses values whose aliases add more than
  :data:`MAX_ALIAS_VALUES` values.
- Binary files and other encodings: :func:`decode` names the problem and the fix.

:class:`LimitError` is a ``yaml.MarkedYAMLError``, so callers that already report
``yaml.YAMLError`` with its line report these too.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Iterator, TypeVar

import yaml

from gpufleet.util.boundedcache import ByteBoundedCache

MAX_BYTES = 32 * 1024 * 1024
MAX_DEPTH = 100  # Kubernetes objects nest about 20 deep; the model about 6
MAX_COLUMN = 1000  # a line indented further is refused before parsing
MAX_INT_DIGITS = 64  # far beyond int64 (19 digits), far below Python's 4,300-digit limit
MAX_ALIAS_VALUES = 10_000  # values aliases may add by repetition
MAX_EMBEDDED = 16 * 1024  # characters of a document embedded in a ConfigMap (real ones are a few KB)

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FLOW_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[\]{}]')
_LEADING = re.compile(r"^[ \t?-]+", re.MULTILINE)


class LimitError(yaml.MarkedYAMLError):
    """Input over one of the limits; ``problem`` says which, ``problem_mark`` where (when known)."""

    def __init__(self, problem: str, line: int | None = None) -> None:
        mark = yaml.Mark("<input>", 0, line, 0, None, 0) if line is not None else None
        super().__init__(problem=problem, problem_mark=mark)


class BigNumber(str):
    """A YAML number too large to hold (its text); readers report it at its path."""


class Loader(_Base):  # type: ignore[misc, valid-type]  # the loader base is chosen at import time (the C loader when libyaml is there)
    """libyaml's safe loader with bounded numbers (see the module docstring)."""


def _int(loader: Loader, node: yaml.ScalarNode) -> Any:
    if len(node.value) > MAX_INT_DIGITS:
        return BigNumber(node.value)
    return yaml.SafeLoader.construct_yaml_int(loader, node)


def _float(loader: Loader, node: yaml.ScalarNode) -> Any:
    if len(node.value) > 400:
        return BigNumber(node.value)
    value = yaml.SafeLoader.construct_yaml_float(loader, node)
    if math.isinf(value) and not node.value.lower().lstrip("+-").startswith(".inf"):
        return BigNumber(node.value)  # 1e400: an overflow, not an intended infinity
    return value


Loader.add_constructor("tag:yaml.org,2002:int", _int)
Loader.add_constructor("tag:yaml.org,2002:float", _float)


def _two_byte_text(data: bytes) -> bool:
    """Whether ``data`` (no byte-order mark) reads as UTF-16 text: every other byte NUL, the rest ASCII text."""
    head = data[:512]
    if len(head) < 2:
        return False
    for zeros, text in ((head[0::2], head[1::2]), (head[1::2], head[0::2])):
        if not zeros.strip(b"\x00") and all(b in b"\t\n\r" or 32 <= b < 127 for b in text):
            return True
    return False


def decode(data: bytes) -> str:
    """UTF-8 text of a file, or ``ValueError`` saying what the bytes are and how to fix it."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or _two_byte_text(data):
        raise ValueError("the file is UTF-16 (or another two-byte encoding), not UTF-8: save it as UTF-8")
    if b"\x00" in data[:8192]:
        raise ValueError(
            "the file is binary (it contains NUL bytes), not YAML text: check the path (YAML is UTF-8 text)"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ValueError(
            f"the file is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}): save it as UTF-8"
        ) from None
    return text.removeprefix("\ufeff")


def _flow_depth(text: str) -> tuple[int, int]:
    """(deepest [ and { nesting outside double-quoted strings, line of it)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return 0, 0
    depth = deepest = where = 0
    for m in _FLOW_TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > deepest:
                deepest, where = depth, m.start()
        elif c in "]}":
            depth = max(0, depth - 1)
    return deepest, text.count("\n", 0, where) + 1


def _widest_line(text: str, at_least: int) -> tuple[int, int]:
    """(widest leading run of spaces, tabs, ``-`` and ``?`` when some line has >= ``at_least``, its line)."""
    if at_least > 0 and not re.search(rf"^[ \t?-]{{{at_least}}}", text, re.MULTILINE):
        return 0, 0
    widest = max(_LEADING.finditer(text), key=lambda m: m.end() - m.start())
    return widest.end() - widest.start(), text.count("\n", 0, widest.start()) + 1


def check_text(text: str) -> bool:
    """Refuse text that could nest too deep before any parser sees it (raises :class:`LimitError`).

    Returns True when the text alone proves the depth is within :data:`MAX_DEPTH`
    (the caller may skip the exact :func:`check_value` walk unless it has aliases).
    """
    if len(text) > MAX_BYTES:
        raise LimitError(f"the input is {len(text)} characters, more than the {MAX_BYTES} gpufleet reads; split it")
    flow, flow_line = _flow_depth(text)
    if flow > MAX_DEPTH:
        raise LimitError(
            f"[ and {{ nest {flow} deep, more than the {MAX_DEPTH} levels gpufleet reads; flatten the document",
            flow_line - 1,
        )
    column, line = _widest_line(text, MAX_DEPTH - flow + 1)
    if column > MAX_COLUMN:
        raise LimitError(
            f"the line is indented {column} columns, more than the {MAX_COLUMN} gpufleet reads "
            "(nesting that deep is refused); flatten the document",
            line - 1,
        )
    return flow + column <= MAX_DEPTH and not has_aliases(text)


def has_aliases(text: str) -> bool:
    return "*" in text and re.search(r"(?:^|[\s\[{,:-])\*[^\s,\[\]{}]", text) is not None


def check_value(value: Any) -> None:
    """Depth and alias expansion of a parsed value, without recursion (raises :class:`LimitError`)."""
    seen: set[int] = set()  # containers already walked once
    added = 0  # values walked again because an alias repeats them
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, (dict, list)):
            continue
        if depth > MAX_DEPTH:
            raise LimitError(f"the document nests more than {MAX_DEPTH} levels deep; flatten it")
        children = list(item.values()) if isinstance(item, dict) else item
        if id(item) in seen:
            added += len(children) + 1
            if added > MAX_ALIAS_VALUES:
                raise LimitError(
                    f"aliases (*name) repeat more than {MAX_ALIAS_VALUES} values; "
                    "write the values out or use fewer aliases"
                )
        else:
            seen.add(id(item))
        stack.extend((child, depth + 1) for child in children)


def load(text: str) -> Any:
    """One YAML document within the limits (raises ``yaml.YAMLError``, including :class:`LimitError`)."""
    proven = check_text(text)
    value = yaml.load(text, Loader=Loader)
    if not proven:
        check_value(value)
    return value


def load_embedded(text: str) -> Any:
    """A configuration document from a ConfigMap: :func:`load` at most :data:`MAX_EMBEDDED` characters long."""
    if len(text) > MAX_EMBEDDED:
        raise LimitError(
            f"the embedded document is {len(text)} characters, more than the {MAX_EMBEDDED} gpufleet checks; "
            "a real configuration is a few kilobytes"
        )
    return load(text)


def read_embedded(text: str, where: str = "") -> tuple[Any, str | None]:
    """(:func:`load_embedded` of ``text``, None), or (None, the parse error with its line, ``where`` after the
    line number): how the platform rules read a configuration embedded in a ConfigMap or chart value."""
    try:
        return load_embedded(text), None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return None, f"{getattr(exc, 'problem', None) or exc}" + (f" (line {mark.line + 1}{where})" if mark else "")


T = TypeVar("T")
_EMBEDDED: ByteBoundedCache[tuple[Any, str], Any] = ByteBoundedCache(
    8 * 1024 * 1024, lambda key: 16 * len(key[1]) + 200
)


def cached(text: str, read: Callable[[str], T]) -> T:
    """``read(text)`` memoised by text in a cache bounded in bytes (parsed YAML is ~16x its text)."""
    return _EMBEDDED.get_or_compute((read, text), lambda key: read(key[1]))


def out_of_range(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(path, text) of every number no Kubernetes field holds: big numbers, infinity, NaN, beyond int64."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, BigNumber):
            yield where, f"{item[:20]}...({len(item)} characters)" if len(item) > 30 else str(item)
        elif isinstance(item, float) and not math.isfinite(item):
            yield where, repr(item).replace("inf", ".inf").replace("nan", ".nan")
        elif isinstance(item, int) and not isinstance(item, bool) and item.bit_length() > 63:
            yield where, str(item)
        elif isinstance(item, dict):
            stack.extend((v, (*where, str(k))) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((v, (*where, i)) for i, v in reversed(list(enumerate(item))))
