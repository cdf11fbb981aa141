"""Move a contract's paths: a Job read out of a CronJob's ``spec.jobTemplate``, a manifest an Argo Workflow embeds.

Called by the CronJob reader (the Job's paths under ``spec.jobTemplate``) and by
:func:`gpufleet.workloads.contract.readers.argo.embedded_contracts` (each embedded manifest's
paths under the Workflow's ``resource.manifest`` path, as the rule engine prefixes the
findings of an embedded object). Every :class:`~gpufleet.kubetypes.fieldpath.FieldPath` in
the record (provenances, template paths) is rewritten; nothing else changes.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from gpufleet.kubetypes.fieldpath import FieldPath

Move = Callable[[FieldPath], FieldPath]


def _moved(value: Any, move: Move) -> Any:
    if isinstance(value, FieldPath):
        return move(value)
    if isinstance(value, tuple):
        return tuple(_moved(v, move) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _moved(getattr(value, f.name), move) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **changes)
    return value


def moved(record: Any, move: Move) -> Any:
    """``record`` (a contract or any part of it) with every field path ``p`` replaced by ``move(p)``."""
    return _moved(record, move)


def prefixed(record: Any, prefix: FieldPath) -> Any:
    """``record`` with ``prefix`` put before every field path."""
    return _moved(record, lambda path: prefix + path)
