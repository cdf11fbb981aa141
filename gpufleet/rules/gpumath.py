"""GPU arithmetic shared by the rule families: which resources are GPUs, what a pod asks for.

Called by :mod:`gpufleet.rules.gangs` (does a batch Job ask for GPUs), :mod:`gpufleet.rules.demands`
(each template's requests, once per object and run), the gpus rules (GANG401-GANG405) and GANG507.

- :func:`gpu_resources` names the resources treated as GPUs: ``nvidia.com/gpu``,
  ``amd.com/gpu``, NVIDIA MIG slices and every pool's ``gpuResource`` in the fleet context.
- :func:`pod_request` is a pod's effective request of one resource, computed by
  :func:`gpufleet.workloads.resources.pod_requests` (the one implementation, as the
  scheduler, Kueue and Volcano compute it: sidecars, init containers, overhead).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Mapping

from gpufleet.fleetctx.context import NO_FLEET_INDEX, FleetContext
from gpufleet.kubetypes import quantity
from gpufleet.workloads import as_list, as_map
from gpufleet.workloads import resources as podres
from gpufleet.workloads.resources import is_gpu as is_gpu  # the one test, owned by the workload readers

ZERO = Decimal(0)


def gpu_resources(fleet: FleetContext | None) -> frozenset[str]:
    """The resources counted as GPUs (the fleet's :class:`~gpufleet.fleetctx.context.FleetIndex`)."""
    return (NO_FLEET_INDEX if fleet is None else fleet.index).gpu_resources


def sorted_gpu_resources(fleet: FleetContext | None) -> tuple[str, ...]:
    """:func:`gpu_resources` in name order."""
    return (NO_FLEET_INDEX if fleet is None else fleet.index).sorted_gpu_resources


_AMOUNTS: dict[str, Decimal | None] = {}
_MISSING = object()
AMOUNTS_KEPT = 4096
"""Short quantity strings whose :func:`amount` is remembered (cleared when full: at most ~1 MB)."""


def _amount(value: Any) -> Decimal | None:
    try:
        return quantity.parse(value)
    except (quantity.QuantityError, ValueError, ArithmeticError):
        return None


def amount(value: Any) -> Decimal | None:
    """A quantity's value, None when it is not one (saturated as :func:`gpufleet.kubetypes.quantity.parse`).

    A short string's answer is remembered by the string (a pure function of it): a pod asks for
    the same few quantities in every template and every review, and a dict look-up is a tenth of
    the parse cache's locked, LRU-ordered one.
    """
    if type(value) is not str or len(value) > quantity.CACHED_CHARS:
        return _amount(value)
    found = _AMOUNTS.get(value, _MISSING)
    if found is not _MISSING:
        return found  # type: ignore[return-value]  # not the sentinel, so Decimal | None; one dict look-up on the hot path
    if len(_AMOUNTS) >= AMOUNTS_KEPT:
        _AMOUNTS.clear()
    found = _AMOUNTS[value] = _amount(value)
    return found


def container_request(container: Mapping[str, Any], resource: str) -> Decimal:
    """The container's request of ``resource`` (its limit when no request is written)."""
    return podres.container_requests(container).get(resource, ZERO)


def pod_request(spec: Mapping[str, Any], resource: str) -> Decimal:
    """The effective pod request of ``resource`` (init containers, sidecars and overhead included)."""
    return podres.pod_requests(spec, (resource,))[resource]


def requested_resources(spec: Mapping[str, Any]) -> set[str]:
    names: set[str] = set()
    for field in ("containers", "initContainers"):
        for container in as_list(spec.get(field)):
            resources = as_map(as_map(container).get("resources"))
            for part in ("requests", "limits"):
                names.update(str(k) for k in as_map(resources.get(part)))
    names.update(str(k) for k in as_map(spec.get("overhead")))
    return names


def template_pod_requests(spec: Mapping[str, Any]) -> dict[str, Decimal]:
    """The pod requests of every resource the pod names (:func:`requested_resources`), in name order.

    The same values, digit for digit (``tests/rules/gpus/test_helpers.py`` compares them on generated
    pods); a pod without init containers or overhead (the usual pod) is summed in one pass over its
    containers, the rest go through :func:`gpufleet.workloads.resources.pod_requests`. What
    :mod:`gpufleet.rules.demands` reads for every template.
    """
    if as_list(spec.get("initContainers")) or spec.get("overhead"):
        return podres.pod_requests(spec, sorted(requested_resources(spec)))
    written: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = []
    names: set[str] = set()
    for container in as_list(spec.get("containers")):
        resources = as_map(
            container.get("resources") if type(container) is dict else as_map(container).get("resources")
        )
        requests, limits = resources.get("requests"), resources.get("limits")
        if type(requests) is not dict:  # as_map, inlined for plain dicts (four calls per container)
            requests = as_map(requests)
        if type(limits) is not dict:
            limits = as_map(limits)
        if requests or limits:  # a container writing neither adds zero to every sum
            names.update(map(str, requests))
            names.update(map(str, limits))
            written.append((requests, limits))
    out: dict[str, Decimal] = {}
    for name in sorted(names):
        total = ZERO
        for requests, limits in written:
            value = requests.get(name)
            if value is None:
                value = limits.get(name)
            if value is not None:
                need = _AMOUNTS.get(value) if type(value) is str else None  # amount()'s memo, inlined
                total += (need if need is not None else amount(value)) or ZERO
        out[name] = max(ZERO, total)  # no init peak, no sidecars: both zero
    return out


def fmt(value: Decimal, resource: str = "") -> str:
    """A quantity as people write it: ``8``, ``500m``, ``1800Gi`` for byte-sized resources."""
    binary = resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-")
    return quantity.fmt(value, binary=binary and value == value.to_integral_value())
