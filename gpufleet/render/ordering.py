"""Which rendered object must exist before which: the one dependency source of the stack.

Used by ``gpufleet.pulumi.quota`` (Pulumi ``depends_on`` edges) and by ``gpufleet.diff``
(the order in which ``pulumi up`` applies a change), so both always agree.

Kueue and Volcano refer to other objects by name: a LocalQueue to its ClusterQueue,
a ClusterQueue to its Cohort and ResourceFlavors, a Cohort to its parent Cohort, a
ResourceFlavor to its Topology, a Volcano queue to its parent queue. The Volcano
webhook rejects a queue whose parent does not exist yet and refuses to delete a
queue that still has children, so the component turns these references into
``depends_on`` edges: Pulumi then creates parents first and deletes children first.
Every namespaced object (a LocalQueue) also refers to its Namespace, which the stack
renders for each team namespace (``gpufleet.render.namespaces``).

Some references must also exist when an engine's admission webhook checks the object,
and ``pulumi preview`` asks the API server for a server-side dry run of every create:
Volcano's queue validator (``validateHierarchicalQueue``, volcano v1.15.1 and v1.14.1)
refuses a queue whose parent is not there yet, so a first preview of a hierarchy failed
on the real API server. ``checked_at_admission`` names those fields; the component
passes them to Pulumi as unknown until their referent exists, so preview skips the dry
run of a child whose parent is still to be created (issue 18).

Plain dicts in, plain dicts out; references to objects that are not rendered
(``root``, a cohort name no Cohort object carries) are ignored.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

Ref = tuple[str, str]  # (kind, metadata.name)


def _names(items: Iterable[Mapping[str, Any]] | None) -> list[str]:
    return [item["name"] for item in items or () if "name" in item]


def _cluster_queue_refs(spec: Mapping[str, Any]) -> list[Ref]:
    refs = [("Cohort", spec["cohortName"])] if spec.get("cohortName") else []
    for group in spec.get("resourceGroups") or ():
        refs += [("ResourceFlavor", name) for name in _names(group.get("flavors"))]
    return refs


_REFERENCES: dict[tuple[str, str], Callable[[Mapping[str, Any]], list[Ref]]] = {
    ("kueue.x-k8s.io", "ClusterQueue"): _cluster_queue_refs,
    ("kueue.x-k8s.io", "LocalQueue"): lambda s: [("ClusterQueue", s["clusterQueue"])] if s.get("clusterQueue") else [],
    ("kueue.x-k8s.io", "Cohort"): lambda s: [("Cohort", s["parentName"])] if s.get("parentName") else [],
    ("kueue.x-k8s.io", "ResourceFlavor"): lambda s: [("Topology", s["topologyName"])] if s.get("topologyName") else [],
    ("scheduling.volcano.sh", "Queue"): lambda s: [("Queue", s["parent"])] if s.get("parent") else [],
}


def _namespace_ref(manifest: Mapping[str, Any]) -> list[Ref]:
    namespace = (manifest.get("metadata") or {}).get("namespace")
    return [("Namespace", namespace)] if namespace else []


def references(manifest: Mapping[str, Any]) -> list[Ref]:
    """The (kind, name) pairs a manifest refers to and that must exist before it (its namespace first)."""
    group = str(manifest.get("apiVersion", "")).split("/")[0]
    finder = _REFERENCES.get((group, manifest.get("kind", "")))
    return _namespace_ref(manifest) + (finder(manifest.get("spec") or {}) if finder else [])


def _ref_of(manifest: Mapping[str, Any]) -> Ref:
    return manifest["kind"], manifest["metadata"]["name"]


def depends_on_keys(objects: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, list[str]]:
    """Map each object's key to the keys of the rendered objects it refers to.

    ``objects`` are ``(key, manifest)`` pairs. Kinds are matched within one API
    group family (a Volcano ``Queue`` never matches a Kueue object) because the
    kinds each group refers to are disjoint.
    """
    pairs = list(objects)
    key_of = {_ref_of(manifest): key for key, manifest in pairs}
    edges: dict[str, list[str]] = {}
    for key, manifest in pairs:
        wanted = [key_of[ref] for ref in references(manifest) if ref in key_of]
        edges[key] = [k for k in dict.fromkeys(wanted) if k != key]
    return edges


# (API group, kind) -> the spec field naming an object the engine's admission webhook looks up.
_CHECKED_AT_ADMISSION: dict[tuple[str, str], str] = {
    ("scheduling.volcano.sh", "Queue"): "parent",
}


def checked_at_admission(manifest: Mapping[str, Any]) -> str | None:
    """The ``spec`` field of ``manifest`` whose referent must exist when its engine admits it, if any."""
    group = str(manifest.get("apiVersion", "")).split("/")[0]
    field = _CHECKED_AT_ADMISSION.get((group, manifest.get("kind", "")))
    return field if field and (manifest.get("spec") or {}).get(field) else None
