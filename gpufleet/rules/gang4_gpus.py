"""GPU arithmetic for the gpus rules (GANG401-GANG403): what a pod asks for, where it may land.

Called by the rule modules ``gang401_*``, ``gang402_*`` and ``gang403_*``.

- :func:`gpu_resources` names the resources treated as GPUs: ``nvidia.com/gpu``,
  ``amd.com/gpu``, NVIDIA MIG slices and every pool's ``gpuResource`` in the fleet context.
- :func:`pod_request` is a pod's effective request of one resource the way the
  scheduler computes it: ``max(sum(containers) + sum(sidecars), max over init
  containers of (init + sidecars started before it))``; a container's request defaults
  to its limit, as the API server defaults it.
- :func:`candidate_pools` picks the pools a pod template may land on: pools whose
  ``nodeLabels`` its ``nodeSelector`` / required node affinity select, else its team's
  pools (namespace to team), else every pool.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterable, Mapping

from gpufleet import quantity
from gpufleet.context import FleetContext, PoolContext
from gpufleet.workloads import as_list, as_map

KNOWN_GPUS = ("nvidia.com/gpu", "amd.com/gpu")
MIG_PREFIX = "nvidia.com/mig-"
ZERO = Decimal(0)


def gpu_resources(fleet: FleetContext | None) -> frozenset[str]:
    names = set(KNOWN_GPUS)
    if fleet is not None:
        names.update(p.gpu_resource for p in fleet.pools)
    return frozenset(names)


def is_gpu(name: str, gpus: frozenset[str]) -> bool:
    return name in gpus or name.startswith(MIG_PREFIX)


def amount(value: Any) -> Decimal | None:
    try:
        return quantity.parse(value)
    except (quantity.QuantityError, ValueError, ArithmeticError):
        return None


def container_request(container: Mapping[str, Any], resource: str) -> Decimal:
    """The container's request of ``resource`` (its limit when no request is written)."""
    resources = as_map(container.get("resources"))
    for field in ("requests", "limits"):
        value = as_map(resources.get(field)).get(resource)
        if value is not None:
            return amount(value) or ZERO
    return ZERO


def pod_request(spec: Mapping[str, Any], resource: str) -> Decimal:
    """The effective pod request of ``resource`` (init containers and sidecars included)."""
    sidecars = init_peak = ZERO
    for init in as_list(spec.get("initContainers")):
        init = as_map(init)
        need = container_request(init, resource)
        if init.get("restartPolicy") == "Always":
            sidecars += need
            init_peak = max(init_peak, sidecars)
        else:
            init_peak = max(init_peak, sidecars + need)
    main = sum((container_request(as_map(c), resource) for c in as_list(spec.get("containers"))), ZERO)
    return max(init_peak, main + sidecars)


def requested_resources(spec: Mapping[str, Any]) -> set[str]:
    names: set[str] = set()
    for field in ("containers", "initContainers"):
        for container in as_list(spec.get(field)):
            resources = as_map(as_map(container).get("resources"))
            for part in ("requests", "limits"):
                names.update(str(k) for k in as_map(resources.get(part)))
    return names


def _expression_verdict(expr: Mapping[str, Any], labels: Mapping[str, str]) -> bool | None:
    """True/False when the pool's labels decide the expression, None when they say nothing."""
    key, op = expr.get("key"), expr.get("operator")
    values = [str(v) for v in as_list(expr.get("values"))]
    if key not in labels:
        return None
    value = labels[key]
    if op == "In":
        return value in values
    if op == "NotIn":
        return value not in values
    if op == "Exists":
        return True
    if op == "DoesNotExist":
        return False
    if op in ("Gt", "Lt") and values and value.lstrip("-").isdigit() and values[0].lstrip("-").isdigit():
        return int(value) > int(values[0]) if op == "Gt" else int(value) < int(values[0])
    return None


def _selects(verdicts: Iterable[bool | None]) -> bool:
    """A selector selects a pool when it decides at least one label positively and none negatively."""
    seen = list(verdicts)
    return True in seen and False not in seen


def _term_selects(selector: Mapping[str, Any], term: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    verdicts = [(str(v) == labels[k]) if k in labels else None for k, v in selector.items()]
    verdicts += [_expression_verdict(as_map(e), labels) for e in as_list(term.get("matchExpressions"))]
    return _selects(verdicts)


def selected_pools(spec: Mapping[str, Any], pools: Iterable[PoolContext]) -> list[PoolContext]:
    """Pools whose node labels the pod's nodeSelector and required node affinity select."""
    selector = as_map(spec.get("nodeSelector"))
    required = as_map(as_map(as_map(spec.get("affinity")).get("nodeAffinity")).get("requiredDuringSchedulingIgnoredDuringExecution"))
    terms = [as_map(t) for t in as_list(required.get("nodeSelectorTerms"))] or [{}]
    return [p for p in pools if any(_term_selects(selector, term, p.node_labels) for term in terms)]


def candidate_pools(spec: Mapping[str, Any], namespace: str | None, fleet: FleetContext) -> tuple[list[PoolContext], str]:
    """The pools a pod template may land on, and how they were chosen (for messages)."""
    chosen = selected_pools(spec, fleet.pools)
    if chosen:
        return chosen, "selected by its node selector"
    team = fleet.team_for_namespace(namespace)
    if team is not None:
        pools = [p for p in (fleet.pool(n) for n in team.pools) if p is not None]
        if pools:
            return pools, f"of team {team.name}"
    return list(fleet.pools), "of the fleet"


def fmt(value: Decimal, resource: str = "") -> str:
    """A quantity as people write it: ``8``, ``500m``, ``1800Gi`` for byte-sized resources."""
    binary = resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-")
    return quantity.fmt(value, binary=binary and value == value.to_integral_value())
