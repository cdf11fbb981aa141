"""GPU arithmetic for the gpus rules (GANG401-GANG403): what a pod asks for, where it may land.

Called by the rule modules ``gang401_*``, ``gang402_*`` and ``gang403_*``.

- :func:`gpu_resources` names the resources treated as GPUs: ``nvidia.com/gpu``,
  ``amd.com/gpu``, NVIDIA MIG slices and every pool's ``gpuResource`` in the fleet context.
- :func:`pod_request` is a pod's effective request of one resource the way the
  scheduler computes it: ``max(sum(containers) + sum(sidecars), max over init
  containers of (init + sidecars started before it))``; a container's request defaults
  to its limit, as the API server defaults it.
- :func:`candidate_pools` picks the pools a pod template may land on, among the pools of
  the system that will place it (:mod:`gpufleet.rules.gpus._placement`): pools whose
  ``nodeLabels`` its ``nodeSelector`` / required node affinity select, else its team's
  pools (namespace to team), else every pool of that system.

The rules read these per pod template through :func:`template_requests`
(every resource a template names) and :func:`template_pools`, both from the object's
:class:`~gpufleet.rules.run.TemplateDemand` records, which :func:`demands` builds once per
object and run (``ctx.run.subject(obj).demands``): the rules checking one object compute
each template's requests and pools once.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterable, Mapping

from gpufleet.kubetypes import quantity
from gpufleet.fleetctx.context import NO_FLEET_INDEX, FleetContext, PoolContext
from gpufleet.rules.api import CheckContext
from gpufleet.rules.gpus._placement import placing_system
from gpufleet.rules.run import TemplateDemand
from gpufleet.workloads import PodTemplate, WorkloadView, as_list, as_map
from gpufleet.workloads.types import EMPTY

MIG_PREFIX = "nvidia.com/mig-"
ZERO = Decimal(0)


def gpu_resources(fleet: FleetContext | None) -> frozenset[str]:
    """The resources counted as GPUs (the fleet's :class:`~gpufleet.fleetctx.context.FleetIndex`)."""
    return (NO_FLEET_INDEX if fleet is None else fleet.index).gpu_resources


def sorted_gpu_resources(fleet: FleetContext | None) -> tuple[str, ...]:
    """:func:`gpu_resources` in name order."""
    return (NO_FLEET_INDEX if fleet is None else fleet.index).sorted_gpu_resources


def is_gpu(name: str, gpus: frozenset[str]) -> bool:
    return name in gpus or name.startswith(MIG_PREFIX)


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
        return found  # type: ignore[return-value]  # not _MISSING: an amount this function stored
    if len(_AMOUNTS) >= AMOUNTS_KEPT:
        _AMOUNTS.clear()
    found = _AMOUNTS[value] = _amount(value)
    return found


def container_request(container: Mapping[str, Any], resource: str) -> Decimal:
    """The container's request of ``resource`` (its limit when no request is written)."""
    return container_requests(container, (resource,))[resource]


def container_requests(container: Mapping[str, Any], names: Iterable[str]) -> dict[str, Decimal]:
    """:func:`container_request` of each resource in ``names``, reading the container once."""
    resources = as_map(container.get("resources"))
    requests, limits = as_map(resources.get("requests")), as_map(resources.get("limits"))
    out: dict[str, Decimal] = {}
    for name in names:
        value = requests.get(name)
        if value is None:
            value = limits.get(name)
        out[name] = ZERO if value is None else amount(value) or ZERO
    return out


def pod_request(spec: Mapping[str, Any], resource: str) -> Decimal:
    """The effective pod request of ``resource`` (init containers and sidecars included)."""
    return pod_requests(spec, (resource,))[resource]


def pod_requests(spec: Mapping[str, Any], names: Iterable[str]) -> dict[str, Decimal]:
    """:func:`pod_request` of each resource in ``names`` (in that order), walking the containers once."""
    names = tuple(names)
    sidecars = dict.fromkeys(names, ZERO)
    init_peak = dict.fromkeys(names, ZERO)
    for init in as_list(spec.get("initContainers")):
        init = as_map(init)
        needs = container_requests(init, names)
        always = init.get("restartPolicy") == "Always"
        for name in names:
            if always:
                sidecars[name] += needs[name]
                init_peak[name] = max(init_peak[name], sidecars[name])
            else:
                init_peak[name] = max(init_peak[name], sidecars[name] + needs[name])
    main = dict.fromkeys(names, ZERO)
    for container in as_list(spec.get("containers")):
        for name, need in container_requests(as_map(container), names).items():
            main[name] += need
    return {name: max(init_peak[name], main[name] + sidecars[name]) for name in names}


def requested_resources(spec: Mapping[str, Any]) -> set[str]:
    names: set[str] = set()
    for field in ("containers", "initContainers"):
        for container in as_list(spec.get(field)):
            resources = as_map(as_map(container).get("resources"))
            for part in ("requests", "limits"):
                names.update(str(k) for k in as_map(resources.get(part)))
    return names


def template_pod_requests(spec: Mapping[str, Any]) -> dict[str, Decimal]:
    """:func:`pod_requests` of every resource the pod names (:func:`requested_resources`), in name order.

    The same values, digit for digit (``tests/rules/gpus/test_helpers.py`` compares them on generated
    pods); a pod without init containers (the usual pod) is summed in one pass over its containers, the
    rest go through :func:`pod_requests`. What :func:`_demands` reads for every template.
    """
    if as_list(spec.get("initContainers")):
        return pod_requests(spec, sorted(requested_resources(spec)))
    written: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = []
    names: set[str] = set()
    for container in as_list(spec.get("containers")):
        resources = as_map(container.get("resources") if type(container) is dict else as_map(container).get("resources"))
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


def _expression_verdict(expr: Mapping[str, Any], labels: Mapping[str, str]) -> bool | None:
    """True/False when the pool's labels decide the expression, None when they say nothing."""
    key, op = expr.get("key"), expr.get("operator")
    values = [str(v) for v in as_list(expr.get("values"))]
    if not isinstance(key, str) or key not in labels:
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


def _term_selects(selector: Mapping[str, Any], term: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """A selector selects a pool when it decides at least one label positively and none negatively."""
    positive = negative = False
    for k, v in selector.items():
        if k in labels:
            if str(v) == labels[k]:
                positive = True
            else:
                negative = True
    for e in as_list(term.get("matchExpressions")):  # every expression is read, as before
        verdict = _expression_verdict(as_map(e), labels)
        if verdict is True:
            positive = True
        elif verdict is False:
            negative = True
    return positive and not negative


def selected_pools(spec: Mapping[str, Any], pools: Iterable[PoolContext]) -> list[PoolContext]:
    """Pools whose node labels the pod's nodeSelector and required node affinity select."""
    selector = as_map(spec.get("nodeSelector"))
    affinity = spec.get("affinity")
    if affinity is None:
        return [p for p in pools if _term_selects(selector, EMPTY, p.node_labels)]
    required = as_map(as_map(as_map(affinity).get("nodeAffinity")).get("requiredDuringSchedulingIgnoredDuringExecution"))
    terms = [as_map(t) for t in as_list(required.get("nodeSelectorTerms"))] or [EMPTY]
    return [p for p in pools if any(_term_selects(selector, term, p.node_labels) for term in terms)]


def candidate_pools(spec: Mapping[str, Any], namespace: str | None, fleet: FleetContext,
                    system: str | None = None) -> tuple[list[PoolContext], str]:
    """The pools a pod template may land on, and how they were chosen (for messages).

    With ``system`` (see :mod:`gpufleet.rules.gpus._placement`) only that system's pools count.
    """
    pools = list(fleet.pools if system is None else fleet.index.pools_by_system.get(system, ()))
    among = f" among the {system} pools" if system else ""
    chosen = selected_pools(spec, pools)
    if chosen:
        return chosen, f"selected by its node selector{among}"
    team = fleet.team_for_namespace(namespace)
    if team is not None:
        own = [p for p in pools if p.name in team.pools]
        if own:
            return own, f"of team {team.name}{among}"
    return pools, f"of the fleet{among}"


def _demands(found: WorkloadView, fleet: FleetContext | None) -> dict[int, TemplateDemand]:
    system = placing_system(found, fleet) if fleet is not None else None
    out: dict[int, TemplateDemand] = {}
    same: dict[tuple[int, ...], tuple[PoolContext, ...]] = {}  # templates on the same pools share one tuple
    for template in found.templates:
        requests = template_pod_requests(template.spec)
        pools, how = candidate_pools(template.spec, found.namespace, fleet, system) if fleet is not None else ([], "")
        out[id(template)] = TemplateDemand(template, requests, same.setdefault(tuple(map(id, pools)), tuple(pools)), how)
    return out


def demands(ctx: CheckContext, found: WorkloadView) -> Mapping[int, TemplateDemand]:
    """``{id(template): TemplateDemand}`` of ``found``'s templates, against ``ctx.fleet``.

    Built once per object and run when ``found`` is the run's view of its object (kept on
    ``ctx.run.subject(obj)``); any other view (a TrainJob seen with its runtime's templates)
    gets fresh records.
    """
    subject = ctx.run.subject(found.obj)
    if subject.view is not found:
        return _demands(found, ctx.fleet)
    if subject.demands is None:
        subject.demands = _demands(found, ctx.fleet)
    return subject.demands


def template_requests(ctx: CheckContext, found: WorkloadView, template: PodTemplate) -> Mapping[str, Decimal]:
    """:func:`pod_request` of every resource one template of ``found`` names, in name order."""
    return demands(ctx, found)[id(template)].requests


def template_request(ctx: CheckContext, found: WorkloadView, template: PodTemplate, resource: str) -> Decimal:
    """:func:`pod_request` of one template of ``found`` (zero for a resource no container names)."""
    return template_requests(ctx, found, template).get(resource, ZERO)


def template_pools(ctx: CheckContext, found: WorkloadView, template: PodTemplate) -> tuple[tuple[PoolContext, ...], str]:
    """:func:`candidate_pools` of one template of ``found`` (as a tuple) against ``ctx.fleet`` (which must be set)."""
    demand = demands(ctx, found)[id(template)]
    return demand.pools, demand.how


def fmt(value: Decimal, resource: str = "") -> str:
    """A quantity as people write it: ``8``, ``500m``, ``1800Gi`` for byte-sized resources."""
    binary = resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-")
    return quantity.fmt(value, binary=binary and value == value.to_integral_value())
