"""Reading an input file whose size is capped: read once, at most the cap, refused past it.

Called by ``gpufleet.whatif.trace`` (a trace), ``gpufleet.whatif.fromcluster`` (a cluster
export) and ``gpufleet.settings`` (a fleet context): a file past its cap is never
read whole into memory.
"""

from __future__ import annotations

from pathlib import Path

UNITS = ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"))


def size_text(size: int) -> str:
    """``size`` bytes in the largest binary unit it fills (``64 MiB``, ``1.5 KiB``, ``100 bytes``)."""
    for unit, name in UNITS:
        if size >= unit:
            return f"{size / unit:.3g} {name}"
    return f"{size} bytes"


class TooLarge(ValueError):
    """A file past its cap; the message names the file, the cap and what the file is (``cap``: the cap, as text)."""

    def __init__(self, path: Path | str, limit: int, what: str) -> None:
        self.cap = size_text(limit)
        super().__init__(f"{path}: larger than {self.cap}, the most a {what} may be")


def read_bounded(path: Path | str, limit: int, what: str) -> bytes:
    """The bytes of ``path``, read once and at most ``limit`` of them (:class:`TooLarge` past that; ``OSError``)."""
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(path, limit, what)
    return data


def read_bounded_text(path: Path | str, limit: int, what: str) -> str:
    """:func:`read_bounded`, decoded as UTF-8 (``ValueError`` naming the file, the fix included)."""
    data = read_bounded(path, limit, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start}) (fix: give a UTF-8 file)") from None
