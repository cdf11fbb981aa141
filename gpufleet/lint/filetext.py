"""A file's text read again when a finding needs a line, so a lint run need not hold every text.

Called by :mod:`gpufleet.lint.runner` (which releases each document's text after the first
pass, :meth:`gpufleet.lint.locate.TextDoc.release`) and :mod:`gpufleet.lint.locate` (which
asks for a document's text back when it places a finding). A :class:`FileText` remembers
the file's name and a fingerprint of the text the loader read (its length and hash); the
text is read again at most once, split into its ``---`` parts as the loader split it, and
used only if it is still the text the objects came from: a file changed in between gives
no text back, and its findings are placed at their object's first line.
"""

from __future__ import annotations

from gpufleet.lint import fastyaml
from gpufleet.lint.sources import read


class FileText:
    """The name of a file the loader read, with what identifies the text it read."""

    __slots__ = ("name", "_length", "_hash", "_parts")

    def __init__(self, name: str, text: str) -> None:
        self.name, self._length, self._hash = name, len(text), hash(text)
        self._parts: dict[int, str] | None = None

    def part(self, first: int, length: int) -> str | None:
        """The text of the ``---`` part that starts on 0-based line ``first`` (``length`` characters long), or None."""
        if self._parts is None:
            text = read(self.name).text
            unchanged = text is not None and len(text) == self._length and hash(text) == self._hash
            # a part after "---" starts on that marker's line: an empty part before it may share the line, a later one wins
            self._parts = {line: body for line, body, _ in fastyaml.split(text)} if unchanged else {}  # type: ignore[arg-type]  # fastyaml.split yields (int, str, ...) rows; yaml_rs has no type information
        body = self._parts.get(first)
        return body if body is not None and len(body) == length else None
