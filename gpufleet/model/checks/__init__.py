"""Cross-field validation of a parsed fleet model.

pydantic checks each field on its own; these checks see the whole fleet
(references, sums against capacity, cohort cycles, the engines' own webhook rules).
Every check module exposes ``check(fleet) -> Iterable[Issue]``; :func:`validate`
runs all of them and returns every issue, sorted, never stopping at the first.
Called by ``gpufleet.model.loader``. The rules are listed in docs/model.md.
"""

from __future__ import annotations

from typing import Callable, Iterable

from gpufleet.model.checks import (
    admission,
    capacity,
    coscheduling,
    dedicated,
    effective,
    engines,
    kueue_shape,
    limits,
    mutations,
    names,
    namespaces,
    native,
    operators,
    ownership,
    pools,
    preemption,
    priority,
    references,
    topology,
    volcano,
    volcano_queues,
)
from gpufleet.model.fleet import Fleet
from gpufleet.yamlin.errors import Issue

Check = Callable[[Fleet], Iterable[Issue]]

CHECKS: list[Check] = [
    names.check,
    namespaces.check,
    references.check,
    pools.check,
    topology.check,
    limits.check,
    capacity.check,
    kueue_shape.check,
    preemption.check,
    admission.check,
    volcano.check,
    volcano_queues.check,
    engines.check,
    priority.check,
    dedicated.check,
    coscheduling.check,
    native.check,
    operators.check,
    ownership.check,
    effective.check,
    mutations.check,
]


def validate(fleet: Fleet) -> list[Issue]:
    issues: set[Issue] = set()
    for check in CHECKS:
        issues.update(check(fleet))
    return sorted(issues, key=lambda i: (i.path, i.message))
