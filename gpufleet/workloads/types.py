"""The value types of :mod:`gpufleet.workloads` and the small readers they are built with.

Rules, the mutator and the linter never walk a workload's YAML themselves: they
read a :class:`WorkloadView` (built by ``gpufleet.workloads.kinds``), whose pod
templates carry the exact paths rules report (``spec.tasks[1].template``).
Every reader here tolerates malformed input (a string where a number belongs, a
list where a map belongs): schema errors are GANG601's business, not a crash.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from gpufleet.kubetypes.fieldpath import ROOT, FieldPath
from gpufleet.kubetypes.objects import reported_name

# Re-exported: the workload views' modules and the rules import these three from here.
from gpufleet.util.maps import EMPTY as EMPTY
from gpufleet.util.maps import as_map as as_map
from gpufleet.util.maps import is_map as is_map
from gpufleet.util.quickinit import quick_init, read_once


def as_list(value: Any) -> list[Any]:
    return value if type(value) is list else []


def as_name(value: Any) -> str | None:
    """A name field (a scheduler's, a queue's): the string, or None when absent, empty or not a string."""
    return value if type(value) is str and value else None


def as_int(value: Any, default: int | None = None) -> int | None:
    """An integer field, or ``default`` when absent or not an integer (``True`` is not one)."""
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return default


METADATA = ROOT.child("metadata")
SPEC = ROOT.child("spec")


def label_path(key: str, base: FieldPath = METADATA) -> FieldPath:
    """Path of a label (a map key, in brackets): ``metadata.labels[kueue.x-k8s.io/queue-name]``."""
    return base.child("labels").key(key)


def annotation_path(key: str, base: FieldPath = METADATA) -> FieldPath:
    return base.child("annotations").key(key)


def group_of(obj: Mapping[str, Any]) -> str:
    """The API group of ``obj`` without its version (``""`` for the core group)."""
    api_version = str(obj.get("apiVersion", ""))
    return api_version.rsplit("/", 1)[0] if "/" in api_version else ""


class _Labelled:
    """The labels and annotations of a ``metadata`` map, read once: a pod template's and a workload's."""

    @property
    def metadata(self) -> Mapping[str, Any]:
        raise NotImplementedError

    @read_once
    def labels(self) -> Mapping[str, Any]:
        return as_map(self.metadata.get("labels"))

    @read_once
    def annotations(self) -> Mapping[str, Any]:
        return as_map(self.metadata.get("annotations"))


@quick_init
@dataclass(frozen=True)
class PodTemplate(_Labelled):
    """One pod template of a workload and how many pods it stamps out."""

    path: FieldPath
    template: Mapping[str, Any]
    replicas: int
    role: str
    replicas_path: FieldPath | None
    spec: Mapping[str, Any]
    spec_path: FieldPath

    # Read once, when first asked (as WorkloadView's below).

    @read_once
    def metadata(self) -> Mapping[str, Any]:
        return as_map(self.template.get("metadata"))

    @read_once
    def metadata_path(self) -> FieldPath:
        return self.path.child("metadata")


@quick_init
@dataclass(frozen=True)
class WorkloadView(_Labelled):
    """A read-only digest of one workload object.

    ``group`` is the API group without version (``""`` for core); ``templates`` the pod
    templates with their paths and pod counts; ``gang_min``/``gang_min_path`` the gang
    minimum (Volcano ``minAvailable``, PodGroup ``minMember``, Kubeflow
    ``schedulingPolicy.minAvailable``, Kueue ``pod-group-total-count``) and where it is
    written; ``scheduler_name`` the job-level scheduler (Volcano Jobs); ``queue_label``
    the ``kueue.x-k8s.io/queue-name`` label; ``volcano_queue`` the Volcano queue from
    spec, scheduling policy or annotation; ``elastic`` the ``gpufleet.dev/elastic``
    opt-in; ``is_gang`` whether it is a multi-pod synchronous workload.
    """

    obj: Mapping[str, Any]
    group: str
    kind: str
    templates: tuple[PodTemplate, ...]
    total_pods: int
    gang_min: int | None
    gang_min_path: FieldPath | None
    scheduler_name: str | None
    queue_label: str | None
    volcano_queue: str | None
    elastic: bool
    is_gang: bool
    pod_group: str | None = (
        None  # gang-membership name (Kueue pod-group-name, Volcano group-name, scheduler-plugins pod-group)
    )
    volcano_queue_path: FieldPath | None = None  # where volcano_queue is written (spec.queue, an annotation path, ...)

    # Read from the object once, when first asked (every rule asks for the namespace): a view is a
    # digest of the object as it was built, and no object changes while its view is in use (the
    # remediations fix copies, and the engine checks each fixed copy with a view of its own).

    @read_once
    def metadata(self) -> Mapping[str, Any]:
        return as_map(self.obj.get("metadata"))

    @read_once
    def name(self) -> str | None:
        return reported_name(self.metadata)

    @read_once
    def namespace(self) -> str | None:
        return self.metadata.get("namespace")
