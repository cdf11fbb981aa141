"""``NameIndex``: a run's objects by API group, kind, namespace and name, for one-look-up references.

Rules that follow a reference to another object of the run (a TrainJob's
``spec.runtimeRef``, GANG106; a Volcano PodGroup named by a pod annotation, GANG107) ask
the run's index (``gpufleet.rules.run.RunIndex.names``, built once per run) instead of
scanning every object per object, which made a lint run grow with the square of its
objects (issue 22). :func:`gpufleet.workloads.runtimes.runtime_for` builds one for a
plain sequence of objects (tests, one-off callers).

The index answers exactly what a scan in run order answered: the *first* object whose
``apiVersion`` group, ``kind``, ``metadata.name`` (and ``metadata.namespace``, unless
:data:`ANY`) equal the ones asked for, compared as they are (no defaulting).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from gpufleet.workloads.types import as_map, group_of, is_map

ANY: Any = object()
"""``namespace`` of :meth:`NameIndex.named` that matches objects in any namespace (cluster-scoped kinds)."""

Key = tuple[str, Any, Any, Any]  # apiGroup, kind, namespace (or ANY), name


class NameIndex:
    """The first object of each (group, kind, namespace, name) and (group, kind, any namespace, name)."""

    __slots__ = ("objects", "_first")

    def __init__(self, objects: Iterable[Mapping[str, Any]]) -> None:
        self.objects = tuple(objects)
        first: dict[Key, Mapping[str, Any]] = {}
        for obj in self.objects:
            if not is_map(obj):
                continue
            meta = as_map(obj.get("metadata"))
            group, kind, name = group_of(obj), obj.get("kind"), meta.get("name")
            for namespace in (meta.get("namespace"), ANY):
                try:
                    first.setdefault((group, kind, namespace, name), obj)
                except TypeError:  # an unhashable kind, namespace or name (a YAML list or map): see named
                    pass
        self._first = first

    def named(self, group: str, kind: Any, name: Any, namespace: Any = ANY) -> Mapping[str, Any] | None:
        """The first object of ``group``, ``kind`` and ``name`` in ``namespace`` (any namespace with :data:`ANY`)."""
        try:
            return self._first.get((group, kind, namespace, name))
        except TypeError:  # an unhashable name asked for: compare by scanning, as before the index
            return next(
                (
                    obj
                    for obj in self.objects
                    if is_map(obj)
                    and group_of(obj) == group
                    and obj.get("kind") == kind
                    and as_map(obj.get("metadata")).get("name") == name
                    and (namespace is ANY or as_map(obj.get("metadata")).get("namespace") == namespace)
                ),
                None,
            )
