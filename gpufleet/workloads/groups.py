"""Gang membership across the objects of one run: who joins which PodGroup or Kueue pod group.

Rules that relate objects (GANG001-003 on PodGroups and Kueue plain-pod groups) ask
``members(ctx.objects, namespace, name)``. The index is built once per run: it is
memoised on the identity of the ``objects`` tuple (the engine passes the same tuple
to every object of a ``check_objects`` call).
"""

from __future__ import annotations

from threading import Lock
from typing import Any, Mapping, Sequence

from gpufleet.workloads.kinds import build_view
from gpufleet.workloads.types import WorkloadView

Index = dict[tuple[str | None, str], list[WorkloadView]]
_LOCK = Lock()
_LAST: tuple[Sequence[Mapping[str, Any]], Index] | None = None


def _build(objects: Sequence[Mapping[str, Any]]) -> Index:
    index: Index = {}
    for view in run_views(objects):
        if view is not None and view.pod_group and view.templates:
            index.setdefault((view.namespace, view.pod_group), []).append(view)
    return index


def index(objects: Sequence[Mapping[str, Any]]) -> Index:
    """``{(namespace, group name): [member workload views]}`` for ``objects``."""
    global _LAST
    last = _LAST
    if last is not None and last[0] is objects:
        return last[1]
    built = _build(objects)
    with _LOCK:
        _LAST = (objects, built)
    return built


def members(objects: Sequence[Mapping[str, Any]], namespace: str | None, name: str) -> list[WorkloadView]:
    """The workloads of ``objects`` whose pods join group ``name`` in ``namespace``."""
    return index(objects).get((namespace, name), [])


_PODS: tuple[Sequence[Mapping[str, Any]], dict[tuple[str | None, str], int]] | None = None


def member_pods(objects: Sequence[Mapping[str, Any]], namespace: str | None, name: str) -> int:
    """How many pods of ``objects`` join group ``name`` (0 when none is seen); memoised per run like the index."""
    global _PODS
    last = _PODS
    if last is None or last[0] is not objects:
        last = (objects, {})
        with _LOCK:
            _PODS = last
    counts = last[1]
    count = counts.get((namespace, name))
    if count is None:
        count = counts[(namespace, name)] = sum(v.total_pods for v in members(objects, namespace, name))
    return count


_VIEWS: tuple[Sequence[Mapping[str, Any]], tuple[WorkloadView | None, ...]] | None = None


def run_views(objects: Sequence[Mapping[str, Any]]) -> tuple[WorkloadView | None, ...]:
    """The workload view of every object of a run (None for non-workloads), built once per run.

    For rules that look across ``ctx.objects``: calling ``build_view`` on every object
    for every checked object is quadratic; this is memoised on the tuple's identity.
    """
    global _VIEWS
    last = _VIEWS
    if last is not None and last[0] is objects:
        return last[1]
    built = tuple(build_view(obj) for obj in objects)
    with _LOCK:
        _VIEWS = (objects, built)
    return built
