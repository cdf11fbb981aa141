"""Pod-template paths as JSON Patch keys, for the placement mutators.

A :class:`gpufleet.workloads.PodTemplate` carries its path as text
(``spec.replicatedJobs[0].template.spec.template``); :func:`spec_keys` and
:func:`metadata_keys` turn it into the key tuple :class:`PatchBuilder` takes.
Template paths never contain bracketed map keys, only list indexes. Used by
:mod:`gpufleet.mutate.partition` and :mod:`gpufleet.mutate.coscheduling`.
"""

from __future__ import annotations

import re

from gpufleet.mutate.patch import Key
from gpufleet.workloads import PodTemplate

_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def keys(path: str) -> tuple[Key, ...]:
    """``spec.tasks[1].template`` -> ``("spec", "tasks", 1, "template")``."""
    return tuple(int(index) if index else name for name, index in _PART.findall(path))


def spec_keys(template: PodTemplate) -> tuple[Key, ...]:
    return keys(template.spec_path)


def metadata_keys(template: PodTemplate) -> tuple[Key, ...]:
    return keys(template.metadata_path)
