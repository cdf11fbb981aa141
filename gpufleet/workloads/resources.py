"""Resource requests of pods, summed the way the scheduler sums them.

A container's request falls back to its limit (the API server's defaulting); a pod
requests, per resource, the larger of its containers' sum and any single
initContainer. Used by GANG003 (minResources) and the GPU rules.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Mapping

from gpufleet.kubetypes import quantity
from gpufleet.workloads.types import as_list, as_map


def container_requests(container: Mapping[str, Any]) -> dict[str, Decimal]:
    """Requests of one container (limits stand in for absent requests); unparsable values are skipped."""
    resources = as_map(container.get("resources"))
    merged = {**as_map(resources.get("limits")), **as_map(resources.get("requests"))}
    out: dict[str, Decimal] = {}
    for name, value in merged.items():
        try:
            out[str(name)] = quantity.parse(value)
        except quantity.QuantityError:
            continue
    return out


def pod_requests(spec: Mapping[str, Any]) -> dict[str, Decimal]:
    """Effective requests of a pod spec: max(Σ containers, each initContainer) per resource."""
    total: dict[str, Decimal] = {}
    for container in as_list(as_map(spec).get("containers")):
        for name, value in container_requests(as_map(container)).items():
            total[name] = total.get(name, Decimal(0)) + value
    for container in as_list(as_map(spec).get("initContainers")):
        for name, value in container_requests(as_map(container)).items():
            total[name] = max(total.get(name, Decimal(0)), value)
    return total
