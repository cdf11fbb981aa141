"""What every operator reader builds the same way: a pod set from a view's template, the GPUs of one pod, the
groups a user names in the templates, the contract's identity.

Called by the operator readers (``readers/jobset.py``, ``lws.py``, ``mpi.py``, ``trainer.py``,
``kubeflow.py``, ``ray.py``) so that one pod has one accelerator count, and one template one path,
whichever reader reads it. The counts are the readers' (each applies its operator's defaulting);
the paths are the workload views' (:mod:`gpufleet.workloads.kinds`), so a finding points where
the views point.

GPUs per pod: the pod's effective request (:func:`gpufleet.workloads.resources.pod_requests`, the
one implementation) of every resource the fleet counts as a GPU (``FleetIndex.gpu_resources``:
``nvidia.com/gpu``, ``amd.com/gpu`` and the pools' ``gpuResource``) or a MIG slice
(``nvidia.com/mig-*``), as the capacity rules count them (``rules.gpumath.is_gpu``), plus one
device per DRA claim the pod spec lists (``spec.resourceClaims``, named ``dra:<claim>``).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Mapping, Sequence

from gpufleet.fleetctx.context import NO_FLEET_INDEX, FleetContext
from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.workloads.contract.types import Admission, After, Backend, GangGroup, PodSet, Provenance, Role, Unit
from gpufleet.workloads.native import gang_policies, scheduling_group
from gpufleet.workloads.resources import pod_requests
from gpufleet.workloads.types import PodTemplate, annotation_path, as_int, as_list, as_map, is_map, label_path

ZERO = Decimal(0)


def gpus_per_pod(spec: Mapping[str, Any], fleet: FleetContext | None) -> tuple[Decimal, tuple[str, ...]]:
    """The accelerators one pod of ``spec`` asks for, and the resources that make them up."""
    gpus = (NO_FLEET_INDEX if fleet is None else fleet.index).gpu_resources
    total, names = ZERO, []
    for name, value in sorted(pod_requests(spec).items()):
        if value > 0 and (name in gpus or name.startswith(vocab.MIG_PREFIX)):
            total += value
            names.append(name)
    for claim in as_list(as_map(spec).get("resourceClaims")):
        if is_map(claim) and claim.get("name"):
            total += 1
            names.append(f"dra:{claim['name']}")
    return total, tuple(names)


def pod_set(
    template: PodTemplate,
    name: str,
    role: Role,
    count: int,
    count_from: Provenance,
    fleet: FleetContext | None,
    created_after: tuple[After, ...] = (),
) -> PodSet:
    """A pod set of ``count`` pods of ``template`` (its path and GPUs read once here)."""
    gpus, resources = gpus_per_pod(template.spec, fleet)
    return PodSet(name, role, max(count, 0), count_from, template.path, gpus, resources, created_after)


def identity(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The contract fields every reader fills from the object itself."""
    meta = as_map(obj.get("metadata"))
    name, namespace = meta.get("name") or meta.get("generateName"), meta.get("namespace")
    return {
        "api_version": str(obj.get("apiVersion", "")),
        "kind": str(obj.get("kind", "")),
        "name": name if isinstance(name, str) else None,
        "namespace": namespace if isinstance(namespace, str) else None,
    }


def count(value: Any, default: int) -> int:
    """A replica count as an operator reads it: the integer, ``default`` when absent or not one, never below 0."""
    return max(as_int(value, default) or 0, 0)


_KEYS: tuple[tuple[str, str, Backend, str], ...] = (
    ("labels", vocab.KUEUE_POD_GROUP, "kueue", ""),
    ("annotations", vocab.KUEUE_POD_GROUP, "kueue", ""),
    ("annotations", vocab.VOLCANO_GROUP, "volcano", "scheduling.volcano.sh"),
    ("annotations", vocab.VOLCANO_GROUP_ALT, "volcano", "scheduling.volcano.sh"),
    ("labels", vocab.COSCHEDULING_GROUP, "coscheduling", "scheduling.x-k8s.io"),
)


def _membership(template: PodTemplate) -> tuple[str, Backend, str, FieldPath] | None:
    """The group ``template``'s pods name, the backend its key belongs to, the group's API group, the key's path."""
    for part, key, backend, api_group in _KEYS:
        source = template.labels if part == "labels" else template.annotations
        if source.get(key):
            at = (
                label_path(key, template.metadata_path)
                if part == "labels"
                else annotation_path(key, template.metadata_path)
            )
            return str(source[key]), backend, api_group, at
    native = scheduling_group(template.spec)
    if native:
        return native, "native", "scheduling.k8s.io", template.spec_path.child("schedulingGroup", "podGroupName")
    return None


def user_groups(
    members: Sequence[tuple[str, PodTemplate]], objects: Sequence[Mapping[str, Any]], namespace: str | None
) -> tuple[GangGroup, ...]:
    """The gang groups the user names in the templates (``(pod set, template)`` pairs), one per group name.

    The minimum is the group object's (a Volcano or scheduler-plugins PodGroup's ``spec.minMember``, a
    native PodGroup's ``minCount``) when the object is among ``objects``, or the Kueue pod group's
    ``pod-group-total-count`` annotation in the template; None when nothing in the input says it.
    """
    found: dict[str, tuple[Backend, str, FieldPath, list[str], PodTemplate]] = {}
    for name, template in members:
        got = _membership(template)
        if got is None:
            continue
        group, backend, api_group, at = got
        entry = found.setdefault(group, (backend, api_group, at, [], template))
        entry[3].append(name)
    out = []
    for group, (backend, api_group, at, names, template) in found.items():
        minimum, origin = _group_minimum(group, backend, api_group, template, objects, namespace, at)
        out.append(GangGroup(group, backend, "user", "workload", tuple(names), minimum, origin))
    return tuple(out)


def _group_minimum(
    group: str,
    backend: Backend,
    api_group: str,
    template: PodTemplate,
    objects: Sequence[Mapping[str, Any]],
    namespace: str | None,
    at: FieldPath,
) -> tuple[int | None, Provenance]:
    if backend == "kueue":
        total = template.annotations.get(vocab.KUEUE_POD_GROUP_TOTAL)
        path = annotation_path(vocab.KUEUE_POD_GROUP_TOTAL, template.metadata_path)
        if total is None:
            return None, Provenance(at, note="no pod-group-total-count: Kueue builds no Workload")
        return as_int(total), Provenance(path)
    for obj in objects:
        meta = as_map(obj.get("metadata"))
        if obj.get("kind") != "PodGroup" or meta.get("name") != group:
            continue
        if not str(obj.get("apiVersion", "")).startswith(api_group + "/") or meta.get("namespace") != namespace:
            continue
        if backend == "native":
            policies = gang_policies(obj)
            if policies:
                return policies[0].min_count, Provenance(policies[0].path, note=f"PodGroup {group}")
            return None, Provenance(at, note=f"PodGroup {group} has no gang policy")
        spec = as_map(obj.get("spec"))
        return as_int(spec.get("minMember"), 1), Provenance(FieldPath.of("spec", "minMember"), note=f"PodGroup {group}")
    return None, Provenance(at, note=f"PodGroup {group} is not in the input")


def admission(obj: Mapping[str, Any], groups: Sequence[GangGroup], total: int, kueue: str, none: str) -> Admission:
    """How the pods are admitted: whole by Kueue when the object carries its queue label (``kueue`` names
    the integration's ``PodSets``, kueue v0.19.2), else by the first gang group (partial when its minimum
    is below the ``total`` pods), else each pod alone (``none`` says why no group exists)."""
    if as_map(as_map(obj.get("metadata")).get("labels")).get(vocab.QUEUE_LABEL):
        return Admission("whole", "kueue", total, total, Provenance(label_path(vocab.QUEUE_LABEL), derived=kueue))
    if groups:
        g = groups[0]
        unit: Unit = "partial" if g.minimum is not None and g.minimum < total else "whole"
        return Admission(unit, g.backend, g.minimum, total, g.minimum_from)
    return Admission("perPod", "none", origin=Provenance(note=none))
