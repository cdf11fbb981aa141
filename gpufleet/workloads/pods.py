"""Readers of pod specs and pod metadata shared by rules and the mutator.

``pod_containers`` walks containers and initContainers with their paths;
``effective_scheduler`` tells which scheduler a template's pods reach;
``pod_group_name`` finds the gang a pod (or pod template) declares membership of (``pod_group_key``:
which key says so, read by the gang contract's readers to name the group's backend).
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.workloads.types import PodTemplate, WorkloadView, as_list, as_map, is_map


def pod_containers(spec: Mapping[str, Any], spec_path: FieldPath) -> Iterator[tuple[FieldPath, Mapping[str, Any]]]:
    """Yield ``(path, container)`` for every container, then every initContainer, of a pod spec."""
    for field in ("containers", "initContainers"):
        containers = as_list(as_map(spec).get(field))
        base = spec_path.child(field) if containers else spec_path
        for i, container in enumerate(containers):
            if is_map(container):
                yield base.index(i), container


def template_scheduler(template: PodTemplate) -> str | None:
    """The schedulerName written in the template itself (None when absent or empty)."""
    name = template.spec.get("schedulerName")
    return str(name) if name else None


def effective_scheduler(view: WorkloadView, template: PodTemplate) -> str:
    """The scheduler the template's pods will reach once every controller and webhook has run.

    A template's own ``schedulerName`` wins; a Volcano Job fills empty templates with
    its ``spec.schedulerName`` (default ``volcano``); everything else defaults to the
    default scheduler.
    """
    own = template_scheduler(template)
    if own:
        return own
    if view.group == "batch.volcano.sh" and view.kind == "Job":
        return view.scheduler_name or vocab.VOLCANO_SCHEDULER
    return vocab.DEFAULT_SCHEDULER


GROUP_KEYS: tuple[tuple[str, str], ...] = (
    ("labels", vocab.KUEUE_POD_GROUP),
    ("annotations", vocab.KUEUE_POD_GROUP),
    ("annotations", vocab.VOLCANO_GROUP),
    ("annotations", vocab.VOLCANO_GROUP_ALT),
    ("labels", vocab.COSCHEDULING_GROUP),
)
"""Where a pod declares its gang, in the order they are read: ``(labels|annotations, key)``."""


def pod_group_key(labels: Mapping[str, Any], annotations: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """``(labels|annotations, key, group name)`` of the first gang key a pod (or pod template) sets, or None."""
    for where, key in GROUP_KEYS:
        value = (labels if where == "labels" else annotations).get(key)
        if value:
            return where, key, str(value)
    return None


def pod_group_name(labels: Mapping[str, Any], annotations: Mapping[str, Any]) -> str | None:
    """The gang a pod declares itself part of: Kueue, Volcano or scheduler-plugins keys, in that order."""
    found = pod_group_key(labels, annotations)
    return found[2] if found is not None else None
