"""Cross-field validation of a parsed fleet model.

pydantic checks each field on its own; these checks see the whole fleet
(references, sums against capacity, cohort cycles, the engines' own webhook rules).
Every check module exposes ``check(fleet) -> Iterable[Issue]``; :func:`validate`
runs all of them and returns every issue, sorted, never stopping at the first.
Called by ``gpufleet.model.loader``.
"""

from __future__ import annotations

from gpufleet.errors import Issue
from gpufleet.model.fleet import Fleet

CHECKS: list = []


def validate(fleet: Fleet) -> list[Issue]:
    issues: set[Issue] = set()
    for check in CHECKS:
        issues.update(check(fleet))
    return sorted(issues, key=lambda i: (i.path, i.message))
