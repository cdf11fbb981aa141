"""Which reader reads which kind: ``(API group, kind)`` to the reader of the upstream controller that owns it.

Readers register themselves with :func:`reader` when their module is imported (``readers/__init__``
imports them all); :func:`read` builds the contract of one object, and answers an unknown
contract (``known=False``) for a kind no reader covers, so that a rule reports it instead of
treating it as safe. Called by the rules' run context, ``gpufleet predict`` (through
:mod:`gpufleet.lint.predict`) and the outcome classifier.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Mapping, Sequence

from gpufleet.fleetctx.context import FleetContext
from gpufleet.fleetctx.operators import NO_PROFILE, OperatorProfile
from gpufleet.workloads.contract.types import Contract
from gpufleet.workloads.names import NameIndex
from gpufleet.workloads.types import as_map, group_of


@dataclass(frozen=True)
class Run:
    """What a reader may consult besides the object: the other objects of the same input (a TrainJob's
    runtime, the PodGroup its pods name), the fleet context (None without ``--fleet``) and the
    operator profile (the operators' settings; their upstream defaults when the context does not say).
    """

    objects: Sequence[Mapping[str, Any]] = ()
    fleet: FleetContext | None = None
    operators: OperatorProfile = NO_PROFILE

    @cached_property
    def names(self) -> NameIndex:
        """The objects by (group, kind, namespace, name), built once per run (a TrainJob's runtime is looked up here)."""
        return NameIndex(self.objects)


NO_RUN = Run()

Reader = Callable[[Mapping[str, Any], Run], Contract]

_READERS: dict[tuple[str, str], Reader] = {}
_SOURCES: dict[tuple[str, str], str] = {}


def reader(group: str, *kinds: str, source: str) -> Callable[[Reader], Reader]:
    """Register the decorated function as the reader of ``kinds`` in API ``group``; ``source`` cites the
    upstream controller it follows (``"kubernetes v1.37.2 pkg/controller/job/job_controller.go"``)."""

    def register(fn: Reader) -> Reader:
        for kind in kinds:
            if (group, kind) in _READERS:
                raise ValueError(f"two readers for {group}/{kind}")
            _READERS[(group, kind)] = fn
            _SOURCES[(group, kind)] = source
        return fn

    return register


def known_kinds() -> dict[tuple[str, str], str]:
    """Every ``(group, kind)`` a reader covers, with the upstream source it cites."""
    _load()
    return dict(_SOURCES)


def has_reader(obj: Mapping[str, Any]) -> bool:
    _load()
    return (group_of(obj), str(obj.get("kind", ""))) in _READERS


def read(obj: Mapping[str, Any], run: Run = NO_RUN) -> Contract:
    """The contract of ``obj``: its reader's, or an unknown contract naming the kind."""
    _load()
    key = (group_of(obj), str(obj.get("kind", "")))
    fn = _READERS.get(key)
    if fn is not None:
        return fn(obj, run)
    meta = as_map(obj.get("metadata"))
    return Contract(
        api_version=str(obj.get("apiVersion", "")),
        kind=key[1],
        name=meta.get("name") if isinstance(meta.get("name"), str) else None,
        namespace=meta.get("namespace") if isinstance(meta.get("namespace"), str) else None,
        reader="none",
        known=False,
        notes=(f"no reader knows {key[1]} ({key[0] or 'core'}): gpufleet cannot say what its controllers do",),
    )


def _load() -> None:
    if not _READERS:
        import gpufleet.workloads.contract.readers  # noqa: F401  (registers every reader)
