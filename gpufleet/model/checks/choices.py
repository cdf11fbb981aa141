"""A list of names that must each be known and listed once (Kueue frameworks, Volcano actions).

Used by the admission and Volcano checks of :mod:`gpufleet.model.checks`: both engines
reject unknown names and, for frameworks, duplicates; a duplicated action makes the
scheduler run it twice per cycle.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.yamlin.errors import Issue


def known_once(
    values: Iterable[str], known: Sequence[str], section: str, field: str, engine: str, noun: str
) -> Iterator[Issue]:
    """Issues for values not in ``known`` and for repeats, at ``<section>.<field>[i]``."""
    seen: dict[str, int] = {}
    for i, value in enumerate(values):
        path = FieldPath.of(section, field, i)
        if value not in known:
            yield Issue(path, f"unknown {engine} {noun} {value!r}", f"use one of: {', '.join(known)}")
        if value in seen:
            yield Issue(path, f"{noun} {value!r} is already listed at {field}[{seen[value]}]", f"list each {noun} once")
        seen.setdefault(value, i)
