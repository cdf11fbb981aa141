"""The contract of a gang-group object itself: a PodGroup or a Kubernetes Workload, with no pod sets of its own.

Called by the readers of the Volcano PodGroup (:mod:`.readers.volcano`), the scheduler-plugins
PodGroup (:mod:`.readers.coscheduling`) and Kubernetes' Workload and PodGroup (:mod:`.readers.native`).
A group object makes no pod: the workloads whose pods name it do. Its contract is the group (backend,
minimum at the path that holds it, queue) with the member workloads this input holds named in a
note, and an admission of the whole group by its backend; its failure path, success and terminal
behaviour are its members'.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.workloads import build_view
from gpufleet.workloads.contract import common
from gpufleet.workloads.contract.membership import group_members
from gpufleet.workloads.contract.registry import Run
from gpufleet.workloads.contract.types import Admission, Backend, Contract, GangGroup, Provenance, Success
from gpufleet.workloads.native import gang_policies
from gpufleet.workloads.types import as_map

MEMBERS_NOTE = "a group object makes no pods: the workloads whose pods name it do"


def members(obj: Mapping[str, Any], run: Run) -> tuple[str, ...]:
    """``Kind/name`` of the workloads of the input whose pods join group ``obj`` (same name and namespace)."""
    meta = as_map(obj.get("metadata"))
    name, namespace = meta.get("name"), meta.get("namespace")
    if not isinstance(name, str):
        return ()
    return tuple(who for who, _ in group_members(run.objects, namespace if isinstance(namespace, str) else None, name))


def group_contract(obj: Mapping[str, Any], run: Run, backend: Backend, source: str) -> Contract:
    """A PodGroup's contract: one group, minimum ``spec.minMember`` (or its gang ``minCount``)."""
    view = build_view(obj)
    assert view is not None
    found = members(obj, run)
    minimum = view.gang_min
    origin = Provenance(view.gang_min_path) if view.gang_min_path is not None else Provenance(note="no minimum written")
    queue = view.volcano_queue if backend == "volcano" else None
    queue_from = Provenance(view.volcano_queue_path) if queue else Provenance()
    if backend == "native" and not gang_policies(obj):
        return common.header(obj, source, notes=(MEMBERS_NOTE, "no gang policy: its pods are scheduled one by one"))
    group = GangGroup(view.name, backend, "user", "workload", found, minimum, origin, queue, queue_from)
    notes = [MEMBERS_NOTE]
    notes.append(f"members in this input: {', '.join(found)}" if found else "no workload of this input joins it")
    return common.header(
        obj,
        source,
        groups=(group,),
        admission=Admission("whole", backend, minimum, None, origin),
        success=Success("its members' controllers decide"),
        notes=tuple(notes),
    )


def workload_contract(obj: Mapping[str, Any], source: str) -> Contract:
    """A Kubernetes Workload's contract: one native group per gang policy of its pod-group templates."""
    meta = as_map(obj.get("metadata"))
    groups = tuple(
        GangGroup(f"{meta.get('name')}[{i}]", "native", "user", "workload", (), p.min_count, Provenance(p.path))
        for i, p in enumerate(gang_policies(obj))
    )
    if not groups:
        return common.header(obj, source, notes=(MEMBERS_NOTE, "no gang policy: its pods are scheduled one by one"))
    first = groups[0]
    return common.header(
        obj,
        source,
        groups=groups,
        admission=Admission("whole", "native", first.minimum, None, first.minimum_from),
        success=Success("its members' controllers decide"),
        notes=(MEMBERS_NOTE, "the PodGroups made from its templates carry the pods"),
    )
