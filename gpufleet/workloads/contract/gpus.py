"""GPUs per pod, as the gang contract records them: extended GPU resources, MIG slices and DRA claims.

Called by every reader (:mod:`gpufleet.workloads.contract.readers`) for each pod set. The extended
resources are summed by :func:`gpufleet.workloads.resources.pod_requests` (the one implementation
the scheduler, Kueue and Volcano share) and tested with :func:`gpufleet.workloads.resources.is_gpu`
(the one test the GPU rules use: the fleet's GPU resources and every ``nvidia.com/mig-*`` slice).

A DRA claim (``spec.resourceClaims[i]``, Kubernetes 1.34+ ``resource.k8s.io/v1``) counts when the
ResourceClaimTemplate or ResourceClaim it names is in the same input and one of its device requests
names a device class with ``gpu`` in its name: ``exactly.count`` devices (default 1, ``allocationMode:
ExactCount``; ``k8s.io/api v0.37.2 resource/v1/types.go`` ``DeviceRequest``, ``ExactDeviceRequest``).
A claim whose object is not in the input is not counted, and the reader says so in a note.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterator, Mapping, Sequence

from gpufleet.fleetctx.context import NO_FLEET_INDEX, FleetContext
from gpufleet.workloads.contract.membership import find_object
from gpufleet.workloads.resources import ZERO, is_gpu, pod_requests
from gpufleet.workloads.types import as_int, as_list, as_map, is_map

DRA_GROUP = "resource.k8s.io"
DRA_PREFIX = "dra:"


def _requests(claim: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The device requests of a ResourceClaim (``spec.devices``) or a template (``spec.spec.devices``)."""
    spec = as_map(claim.get("spec"))
    if claim.get("kind") == "ResourceClaimTemplate":
        spec = as_map(spec.get("spec"))
    for request in as_list(as_map(spec.get("devices")).get("requests")):
        if is_map(request):
            yield as_map(request.get("exactly")) or request  # v1 nests under ``exactly``; v1beta1 does not


def _claim_gpus(claim: Mapping[str, Any]) -> Decimal:
    total = ZERO
    for request in _requests(claim):
        if "gpu" in str(request.get("deviceClassName") or "").lower():
            total += Decimal(max(as_int(request.get("count"), 1) or 1, 1))
    return total


def pod_gpus(
    spec: Mapping[str, Any],
    objects: Sequence[Mapping[str, Any]] = (),
    fleet: FleetContext | None = None,
    namespace: str | None = None,
) -> tuple[Decimal, tuple[str, ...], tuple[str, ...]]:
    """``(GPUs one pod asks for, the resources counted, notes)`` of pod spec ``spec``."""
    gpus = (NO_FLEET_INDEX if fleet is None else fleet.index).gpu_resources
    total, names, notes = ZERO, [], []
    for name, value in sorted(pod_requests(spec).items()):
        if value > 0 and is_gpu(name, gpus):
            total += value
            names.append(name)
    for claim in as_list(as_map(spec).get("resourceClaims")):
        claim = as_map(claim)
        template, own = claim.get("resourceClaimTemplateName"), claim.get("resourceClaimName")
        kind, ref = ("ResourceClaimTemplate", template) if template else ("ResourceClaim", own)
        if not isinstance(ref, str) or not ref:
            continue
        found = find_object(objects, DRA_GROUP, kind, ref, namespace)
        if found is None:
            notes.append(
                f"DRA claim {claim.get('name') or ref}: {kind} {ref} is not in this input, its devices are not counted"
            )
            continue
        devices = _claim_gpus(found)
        if devices > 0:
            total += devices
            names.append(f"{DRA_PREFIX}{claim.get('name') or ref}")
    return total, tuple(names), tuple(notes)
