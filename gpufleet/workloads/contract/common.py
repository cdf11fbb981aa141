"""What several readers read the same way: the record's header, the kubelet's step, the admitting system, placement.

Called by the readers in :mod:`gpufleet.workloads.contract.readers` (one per upstream controller),
so that a fact every kind shares is decided once:

- :func:`header`: kind, name and namespace of the object (``reported_name``: a ``generateName``
  prefix when the API server has not named it yet);
- :func:`kubelet_step`: a pod ``restartPolicy`` of ``Always`` or ``OnFailure`` makes the kubelet
  restart a failed container in place before any controller sees a failed pod (``kubernetes
  v1.37.2 pkg/kubelet/kuberuntime/kuberuntime_manager.go`` ``computePodActions``); the API default
  is ``Always`` (``pkg/apis/core/v1/defaults.go`` ``SetDefaults_PodSpec``);
- :func:`kueue_route`: the LocalQueue an object is routed to (its queue label, the fleet's label
  key when a fleet context is given), or Kueue holding it for lack of one
  (``FleetContext.kueue_holds_unlabelled``);
- :func:`admission`: the unit and system that admit the workload, from the route and the groups;
- :func:`placement`: the scheduler each pod set reaches and the topology asked for.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.objects import reported_name
from gpufleet.workloads.contract.registry import Run
from gpufleet.workloads.contract.types import (
    UNKNOWN,
    Admission,
    Backend,
    Contract,
    FailureStep,
    GangGroup,
    Placement,
    Provenance,
)
from gpufleet.workloads.types import WorkloadView, annotation_path, as_map, label_path

POD_DEFAULTS = "kubernetes v1.37.2 pkg/apis/core/v1/defaults.go SetDefaults_PodSpec"
KUBELET = "kubernetes v1.37.2 pkg/kubelet/kuberuntime/kuberuntime_manager.go computePodActions"
KUEUE_UNLABELLED = "kueue v0.19.2 pkg/controller/jobframework/reconciler.go (manageJobsWithoutQueueName)"


def header(obj: Mapping[str, Any], reader: str, **fields: Any) -> Contract:
    """A contract of ``obj`` read by ``reader`` (the upstream file, function and tag), with ``fields``."""
    meta = as_map(obj.get("metadata"))
    namespace = meta.get("namespace")
    return Contract(
        api_version=str(obj.get("apiVersion", "")),
        kind=str(obj.get("kind", "")),
        name=reported_name(meta),
        namespace=namespace if isinstance(namespace, str) else None,
        reader=reader,
        **fields,
    )


def restart_policy(
    pod_spec: Mapping[str, Any], spec_path: FieldPath, default: str, origin: str
) -> tuple[str, Provenance]:
    """A pod's ``restartPolicy`` and where it comes from (written, or ``default`` from ``origin``)."""
    written = pod_spec.get("restartPolicy")
    if isinstance(written, str) and written:
        return written, Provenance(spec_path.child("restartPolicy"))
    return default, Provenance(derived=origin, note=f"restartPolicy defaults to {default}")


def kubelet_step(policy: str, origin: Provenance, bound: int | None = None) -> FailureStep | None:
    """The kubelet's in-place restart under ``policy`` (None under ``Never``: the pod fails and a controller acts)."""
    if policy in ("Always", "OnFailure"):
        return FailureStep("kubelet", "inPlace", bound, origin)
    return None


def kueue_route(view: WorkloadView, run: Run, managed: bool = True) -> tuple[str | None, Provenance] | None:
    """``(LocalQueue, where it is named)`` when Kueue admits ``view``'s object, None when it does not.

    ``managed``: whether Kueue has an integration for the kind at all. A queue label routes it; without
    one, a fleet context whose Kueue manages jobs without a queue name in the namespace holds it (queue None).
    """
    if not managed:
        return None
    key = run.fleet.queue_label if run.fleet is not None else vocab.QUEUE_LABEL
    queue = view.labels.get(key)
    if isinstance(queue, str) and queue:
        return queue, Provenance(label_path(key))
    if run.fleet is not None and run.fleet.kueue_holds_unlabelled(view.namespace):
        return None, Provenance(derived=KUEUE_UNLABELLED, note="Kueue holds it until a queue is named")
    return None


def elastic_origin(view: WorkloadView) -> Provenance | None:
    """Where the workload opts into running below its size (``gpufleet.dev/elastic``), or None."""
    return Provenance(annotation_path(vocab.ELASTIC)) if view.elastic else None


def admission(
    view: WorkloadView,
    count: int,
    groups: Sequence[GangGroup],
    route: tuple[str | None, Provenance] | None,
    partial: tuple[int, Provenance] | None = None,
) -> Admission:
    """The admission of ``count`` pods: by Kueue when routed there, else by the first group's backend, else pod by pod.

    The unit is ``elastic`` when the workload opts in, ``partial`` when the minimum admitted
    (``partial``, else the group's minimum) is below ``count``, else ``whole``; ``perPod`` when nothing
    admits the pods together.
    """
    by: Backend
    minimum, origin = None, UNKNOWN
    if route is not None:
        by, origin = "kueue", route[1]
        if partial is not None:
            minimum, origin = partial
    elif groups:
        group = groups[0]
        by, minimum, origin = group.backend, group.minimum, group.minimum_from
    else:
        return Admission("perPod", "none", None, None, Provenance(note="no gang group and no admitting queue"))
    elastic = elastic_origin(view)
    if elastic is not None:
        return Admission("elastic", by, minimum, count, elastic)
    if minimum is not None and minimum < count:
        return Admission("partial", by, minimum, count, origin)
    return Admission("whole", by, count if minimum is None else minimum, count, origin)


def placement(
    schedulers: Sequence[tuple[str, str | None]],
    templates: Sequence[Mapping[str, Any]] = (),
    topology: str | None = None,
) -> Placement:
    """The schedulers per pod set and the topology asked for (Kueue TAS on a template, else ``topology``)."""
    for template in templates:
        annotations = as_map(as_map(template.get("metadata")).get("annotations"))
        for key in (vocab.KUEUE_REQUIRED_TOPOLOGY, vocab.KUEUE_PREFERRED_TOPOLOGY):
            if annotations.get(key):
                topology = f"{key}={annotations[key]}"
                break
    return Placement(tuple(schedulers), topology)


def annotation_of(view: WorkloadView, key: str) -> tuple[Any, FieldPath]:
    return view.annotations.get(key), annotation_path(key)
