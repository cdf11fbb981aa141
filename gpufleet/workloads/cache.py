"""``view(obj)``: the workload view, built once per object while the engine checks it.

The rule engine wraps each object in :func:`viewing`; while that block runs, every
rule's ``view(obj)`` for the *same* object (identity, not equality) returns the one
view built on entry. Outside such a block ``view`` builds a fresh view, so callers
that modify an object between calls never see a stale one. A ContextVar keeps this
correct under threads and asyncio (the admission webhook).

:func:`memo` gives rules a dict for values they derive from that shared view (the GPU
rules' per-template requests and candidate pools): it lives exactly as long as the
view, so rules checking one object compute such values once. For any other view it
is a fresh, throwaway dict, so nothing is ever cached for an object outside a block.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any, Iterator, Mapping

from gpufleet.workloads.kinds import build_view
from gpufleet.workloads.types import WorkloadView

# (object, its view, the view's memo) while the engine checks the object.
Current = tuple[Mapping[str, Any], WorkloadView | None, dict[Any, Any]]
_CURRENT: ContextVar[Current | None] = ContextVar("gpufleet_view", default=None)


def view(obj: Mapping[str, Any]) -> WorkloadView | None:
    """The :class:`WorkloadView` of ``obj``, or None for kinds that are not workloads."""
    current = _CURRENT.get()
    if current is not None and current[0] is obj:
        return current[1]
    return build_view(obj)


def memo(found: WorkloadView | None) -> dict[Any, Any]:
    """A dict for values derived from ``found``, shared while ``found`` is the current view.

    Keys are the caller's (a rule module prefixes its own); values must be immutable or
    never modified. Outside :func:`viewing`, or for another view, a new empty dict.
    """
    current = _CURRENT.get()
    if current is not None and found is not None and current[1] is found:
        return current[2]
    return {}


def enter(obj: Mapping[str, Any]) -> Token[Any]:
    """Build the view of ``obj`` and serve it to ``view(obj)`` until :func:`leave` (the engine's fast path)."""
    return _CURRENT.set((obj, build_view(obj), {}))


def leave(token: Token[Any]) -> None:
    """End what :func:`enter` started (always call it, in a ``finally``)."""
    _CURRENT.reset(token)


@contextmanager
def viewing(obj: Mapping[str, Any]) -> Iterator[WorkloadView | None]:
    """Build the view of ``obj`` once and serve it to every ``view(obj)`` inside the block."""
    token = enter(obj)
    try:
        yield token.var.get()[1]  # type: ignore[index]
    finally:
        leave(token)
