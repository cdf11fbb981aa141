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


def _walk(folder: str, prefix: str) -> Iterator[str]:
    """Every file to read below ``folder`` (spelt ``prefix`` + its relative path), in order.

    Each folder's entries are visited sorted by name, folders entered where they sort:
    that is the order of the files' parts sorted as tuples, which is pathlib's order.
    """
    try:
        with os.scandir(folder) as entries:
            listed = sorted(entries, key=lambda entry: entry.name)
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
            yield from _walk(entry.path, prefix + name + os.sep)
        elif name.endswith(SUFFIXES) and entry.is_file():
            yield prefix + name


def _directory(root: Path) -> Iterator[str]:
    """The files below ``root`` that are read, in the order of ``sorted(root.rglob("*"))``, as the walk finds them.

    Symbolic links to directories are not followed (as ``rglob`` does not), hidden folders
    not entered; one ``scandir`` per folder instead of pathlib's objects per entry.
    """
    base = str(root)
    prefix = "" if base == "." else base if base.endswith(os.sep) else base + os.sep  # what str(root / relative) spells
    return _walk(base, prefix)


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


def entries(paths: Iterable[str], stdin_text: str | None = None) -> Iterator[str | Source]:
    """What ``paths`` name, in order, directories expanded as they are walked: a file's name to read, or a :class:`Source` made already.

    Standard input and a path that does not exist are Sources; every file is its name, for
    :func:`read` (the linter's workers read their own share, :mod:`gpufleet.lint.pool`).
    """
    for raw in paths:
        if raw == STDIN:
            yield Source(STDIN_NAME, stdin_text or "", None if stdin_text is not None else "no standard input given")
            continue
        path = Path(raw)
        if path.is_dir():
            yield from _directory(path)
        elif path.exists():
            yield str(path)
        else:
            yield Source(raw, None, "does not exist")


def stream(paths: Iterable[str], stdin_text: str | None = None) -> Iterator[Source]:
    """The inputs named by ``paths``, in order, directories expanded, each file read when reached.

    The linter consumes them one at a time, so no more than one file's text need be held.
    """
    return (read(entry) if isinstance(entry, str) else entry for entry in entries(paths, stdin_text))


def collect(paths: Iterable[str], stdin_text: str | None = None) -> list[Source]:
    """The inputs named by ``paths``, in order, directories expanded (:func:`stream`, all read)."""
    return list(stream(paths, stdin_text))
