"""Which gang group a pod (or pod template) joins, and that group's minimum when the input holds it.

Called by the readers of kinds whose pods name a group the user made (batch Job, Pod, the apps
controllers, CronJob): the key the pod sets (:func:`gpufleet.workloads.pods.pod_group_key`, or a
Kubernetes ``spec.schedulingGroup``, :func:`gpufleet.workloads.native.scheduling_group`) names the
backend that enforces it:

- ``kueue.x-k8s.io/pod-group-name``: a Kueue pod group (``kueue v0.19.2
  pkg/controller/jobs/pod/pod_controller.go`` ``constructGroupPodSets``): its minimum is the pods'
  ``kueue.x-k8s.io/pod-group-total-count``, its queue their ``kueue.x-k8s.io/queue-name``;
- ``scheduling.k8s.io/group-name`` / ``scheduling.volcano.sh/group-name``: a Volcano PodGroup
  (``volcano v1.14.1 pkg/scheduler/api/job_info.go``), minimum its ``spec.minMember``;
- ``scheduling.x-k8s.io/pod-group``: a scheduler-plugins PodGroup (``scheduler-plugins v0.35
  pkg/coscheduling``), minimum its ``spec.minMember``;
- ``spec.schedulingGroup.podGroupName``: a Kubernetes PodGroup (1.36+), minimum its gang ``minCount``.

The PodGroup object is looked up among the input's objects (same name and namespace); a group
whose object is not in the input has no minimum (None), and the group's provenance says so.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.workloads.contract.types import UNKNOWN, Backend, GangGroup, Provenance
from gpufleet.workloads.native import gang_policies, scheduling_group
from gpufleet.workloads.pods import pod_group_key
from gpufleet.workloads.types import SPEC, as_int, as_map, group_of

_BACKENDS: dict[str, tuple[Backend, str | None]] = {
    vocab.KUEUE_POD_GROUP: ("kueue", None),
    vocab.VOLCANO_GROUP: ("volcano", "scheduling.volcano.sh"),
    vocab.VOLCANO_GROUP_ALT: ("volcano", "scheduling.volcano.sh"),
    vocab.COSCHEDULING_GROUP: ("coscheduling", "scheduling.x-k8s.io"),
}


def find_object(
    objects: Sequence[Mapping[str, Any]], api_group: str, kind: str, name: str, namespace: str | None
) -> Mapping[str, Any] | None:
    """The object ``kind`` ``name`` of ``api_group`` in ``namespace`` among ``objects`` (one without a namespace matches), or None."""
    for obj in objects:
        meta = as_map(obj.get("metadata"))
        if (
            obj.get("kind") == kind
            and group_of(obj) == api_group
            and meta.get("name") == name
            and meta.get("namespace") in (None, namespace)
        ):
            return obj
    return None


def find_pod_group(
    objects: Sequence[Mapping[str, Any]], api_group: str, name: str, namespace: str | None
) -> Mapping[str, Any] | None:
    """The PodGroup ``name`` of ``api_group`` in ``namespace`` among ``objects``, or None."""
    return find_object(objects, api_group, "PodGroup", name, namespace)


def _minimum(found: Mapping[str, Any] | None, backend: Backend, name: str) -> tuple[int | None, Provenance]:
    if found is None:
        return None, Provenance(note=f"PodGroup {name} is not in this input: its minimum is unknown")
    if backend == "native":
        policies = gang_policies(found)
        if not policies:
            return None, Provenance(note=f"PodGroup {name} has no gang policy: its pods are scheduled one by one")
        return policies[0].min_count, Provenance(derived=f"PodGroup {name} {policies[0].path}")
    spec = as_map(found.get("spec"))
    written = as_int(spec.get("minMember"))
    return written, Provenance(derived=f"PodGroup {name} {SPEC.child('minMember')}", note=None if written else "unset")


def template_group(
    labels: Mapping[str, Any],
    annotations: Mapping[str, Any],
    pod_spec: Mapping[str, Any],
    metadata_path: FieldPath,
    members: tuple[str, ...],
    objects: Sequence[Mapping[str, Any]],
    namespace: str | None,
    queue: str | None = None,
    queue_from: Provenance = UNKNOWN,
) -> GangGroup | None:
    """The group pods with these labels, annotations and spec join (None: no group key), with its minimum."""
    found = pod_group_key(labels, annotations)
    if found is None:
        native = scheduling_group(pod_spec)
        if native is None:
            return None
        pod_group = find_pod_group(objects, "scheduling.k8s.io", native, namespace)
        minimum, origin = _minimum(pod_group, "native", native)
        return GangGroup(native, "native", "user", "workload", members, minimum, origin)
    _, key, name = found
    backend, api_group = _BACKENDS[key]
    if backend == "kueue":
        total = as_int(annotations.get(vocab.KUEUE_POD_GROUP_TOTAL))
        origin = (
            Provenance(metadata_path.child("annotations").key(vocab.KUEUE_POD_GROUP_TOTAL))
            if vocab.KUEUE_POD_GROUP_TOTAL in annotations
            else Provenance(note="no kueue.x-k8s.io/pod-group-total-count: Kueue builds no Workload for the group")
        )
        return GangGroup(name, "kueue", "kueue", "workload", members, total, origin, queue, queue_from)
    assert api_group is not None
    pod_group = find_pod_group(objects, api_group, name, namespace)
    minimum, origin = _minimum(pod_group, backend, name)
    own_queue = as_map((pod_group or {}).get("spec")).get("queue") if backend == "volcano" else None
    if isinstance(own_queue, str) and own_queue:
        return GangGroup(
            name,
            backend,
            "user",
            "workload",
            members,
            minimum,
            origin,
            own_queue,
            Provenance(derived=f"PodGroup {name} spec.queue"),
        )
    return GangGroup(name, backend, "user", "workload", members, minimum, origin)


VOLCANO_PG_CONTROLLER = "volcano v1.14.1 pkg/controllers/podgroup/pg_controller_handler.go createNormalPodPGIfNotExist"


def volcano_owner_group(scheduler: str | None, members: tuple[str, ...], name: str | None) -> GangGroup | None:
    """The PodGroup Volcano's podgroup controller makes for pods sent to it without one: minimum 1 (no gang)."""
    if scheduler != vocab.VOLCANO_SCHEDULER:
        return None
    origin = Provenance(derived=VOLCANO_PG_CONTROLLER, note="one PodGroup per owner, minMember 1")
    return GangGroup(name, "volcano", "operator", "workload", members, 1, origin, "default", origin)


_INDEX: list[Any] = [None, {}]
"""The last input's group index: ``[its objects, {(namespace, group): [(Kind/name, pods)]}]`` (one input at a time)."""


def group_index(objects: Sequence[Mapping[str, Any]]) -> dict[tuple[str | None, str], list[tuple[str, int]]]:
    """``{(namespace, group name): [(Kind/name, pods)]}`` of the workloads of the input whose pods join a group.

    Built once per input (the readers of every member ask): the last input's index is kept.
    """
    if _INDEX[0] is objects:
        return _INDEX[1]
    from gpufleet.workloads.kinds import build_view

    index: dict[tuple[str | None, str], list[tuple[str, int]]] = {}
    for obj in objects:
        view = build_view(obj)
        if view is not None and view.templates and view.pod_group:
            index.setdefault((view.namespace, view.pod_group), []).append((f"{view.kind}/{view.name}", view.total_pods))
    _INDEX[:] = [objects, index]
    return index


def group_members(objects: Sequence[Mapping[str, Any]], namespace: str | None, name: str) -> list[tuple[str, int]]:
    """``(Kind/name, pods)`` of the workloads of the input whose pods join group ``name`` in ``namespace``."""
    index = group_index(objects)
    found = list(index.get((namespace, name), ()))
    if namespace is not None:
        found += index.get((None, name), [])
    return found


def group_pods(objects: Sequence[Mapping[str, Any]], namespace: str | None, name: str) -> int:
    """How many pods of the input join group ``name`` in ``namespace`` (every workload's pods, as its view counts them)."""
    return sum(pods for _, pods in group_members(objects, namespace, name))
