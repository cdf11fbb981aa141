"""Which files ``gpufleet lint PATH...`` reads, and their text.

Called by :mod:`gpufleet.lint.runner`. A path is a file (read whatever its suffix), a
directory (every ``*.yaml``, ``*.yml`` and ``*.json`` below it, sorted, hidden
folders skipped) or ``-`` for standard input (the adapter passes the text in, so this
module never touches ``sys.stdin``). A file that cannot be read becomes a
:class:`Source` with ``error`` set, which the runner reports as GANG000.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from gpufleet.yamlin import yamllimits

SUFFIXES = (".yaml", ".yml", ".json")
STDIN = "-"
STDIN_NAME = "<stdin>"


@dataclass(frozen=True)
class Source:
    """One input: its display name, its text (None when unreadable) and why it is unreadable."""

    name: str
    text: str | None
    error: str | None = None
    unreadable: bool = False  # the file could not be read at all (an I/O error, not its content)
    from_file: bool = False  # read from the file ``name`` (which may be read again: gpufleet.lint.filetext)

    @property
    def is_json(self) -> bool:
        return self.name.endswith(".json")


def _walk(folder: str, parts: tuple[str, ...], found: list[tuple[str, ...]]) -> None:
    """Add the relative parts of every file to read below ``folder`` to ``found``."""
    try:
        with os.scandir(folder) as entries:
            listed = list(entries)
    except PermissionError:
        return  # as rglob: an unreadable folder is left out
    for entry in listed:
        name = entry.name
        if name.startswith("."):
            continue
        try:
            folder_below = entry.is_dir(follow_symlinks=False)
        except OSError:
            folder_below = False
        if folder_below:
            _walk(entry.path, parts + (name,), found)
        elif name.endswith(SUFFIXES) and entry.is_file():
            found.append(parts + (name,))


def _directory(root: Path) -> list[str]:
    """The files below ``root`` that are read, in the order of ``sorted(root.rglob("*"))``.

    Symbolic links to directories are not followed (as ``rglob`` does not), hidden folders
    not entered; one ``scandir`` per folder instead of pathlib's objects per entry.
    """
    found: list[tuple[str, ...]] = []
    base = str(root)
    _walk(base, (), found)
    found.sort()  # pathlib orders paths by their parts, not by their text
    prefix = "" if base == "." else base if base.endswith(os.sep) else base + os.sep
    return [prefix + os.sep.join(parts) for parts in found]  # what str(root / relative) spells


def read(path: str | Path) -> Source:
    name = str(path)
    try:
        with open(name, "rb") as handle:
            data = handle.read()
        return Source(name, yamllimits.decode(data), from_file=True)
    except ValueError as exc:  # binary, UTF-16 or not UTF-8: the message says which, and the fix
        return Source(name, None, str(exc).removeprefix("the file "))
    except OSError as exc:
        return Source(name, None, f"cannot be read: {exc.strerror or exc}", unreadable=True)


def plan(paths: Iterable[str], stdin_text: str | None = None) -> list[str | Source]:
    """What ``paths`` name, in order, directories expanded: a file's name to read, or a :class:`Source` made already.

    Standard input and a path that does not exist are Sources; every file is its name, for
    :func:`read` (the linter's workers read their own share, :mod:`gpufleet.lint.pool`).
    """
    entries: list[str | Source] = []
    for raw in paths:
        if raw == STDIN:
            entries.append(Source(STDIN_NAME, stdin_text or "", None if stdin_text is not None else "no standard input given"))
            continue
        path = Path(raw)
        if path.is_dir():
            entries.extend(_directory(path))
        elif path.exists():
            entries.append(str(path))
        else:
            entries.append(Source(raw, None, "does not exist"))
    return entries


def stream(paths: Iterable[str], stdin_text: str | None = None) -> Iterator[Source]:
    """The inputs named by ``paths``, in order, directories expanded, each file read when reached.

    The linter consumes them one at a time, so no more than one file's text need be held.
    """
    return (read(entry) if isinstance(entry, str) else entry for entry in plan(paths, stdin_text))


def collect(paths: Iterable[str], stdin_text: str | None = None) -> list[Source]:
    """The inputs named by ``paths``, in order, directories expanded (:func:`stream`, all read)."""
    return list(stream(paths, stdin_text))
