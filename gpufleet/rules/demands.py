"""Where each pod template of a workload may land and what it asks for, once per object and run.

Called by :mod:`gpufleet.rules.gangs` (a batch Job asking for GPUs), the gpus rules
(GANG402-GANG405) and, through ``ctx.run``, GANG106.

- :func:`candidate_pools` picks the pools a pod template may land on, among the pools of
  the system that will place it (:mod:`gpufleet.rules.placement`): pools whose
  ``nodeLabels`` its ``nodeSelector`` / required node affinity select, else its team's
  pools (namespace to team), else every pool of that system.

The rules read these per pod template through :func:`template_requests`
(every resource a template names, :func:`gpufleet.rules.gpumath.template_pod_requests`) and
:func:`template_pools`, both from the object's :class:`~gpufleet.rules.run.TemplateDemand`
records, which :func:`demands` builds once per object and run (``ctx.run.subject(obj).demands``):
the rules checking one object compute each template's requests and pools once.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterable, Mapping

from gpufleet.fleetctx.context import FleetContext, PoolContext
from gpufleet.rules.api import CheckContext
from gpufleet.rules.gpumath import ZERO, template_pod_requests
from gpufleet.rules.placement import placing_system
from gpufleet.rules.run import TemplateDemand
from gpufleet.workloads import PodTemplate, WorkloadView, as_list, as_map
from gpufleet.workloads.types import EMPTY


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
    required = as_map(
        as_map(as_map(affinity).get("nodeAffinity")).get("requiredDuringSchedulingIgnoredDuringExecution")
    )
    terms = [as_map(t) for t in as_list(required.get("nodeSelectorTerms"))] or [EMPTY]
    return [p for p in pools if any(_term_selects(selector, term, p.node_labels) for term in terms)]


def candidate_pools(
    spec: Mapping[str, Any], namespace: str | None, fleet: FleetContext, system: str | None = None
) -> tuple[list[PoolContext], str]:
    """The pools a pod template may land on, and how they were chosen (for messages).

    With ``system`` (see :mod:`gpufleet.rules.placement`) only that system's pools count.
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
        out[id(template)] = TemplateDemand(
            template, requests, same.setdefault(tuple(map(id, pools)), tuple(pools)), how
        )
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
    """:func:`~gpufleet.rules.gpumath.pod_request` of every resource one template of ``found`` names, in name order."""
    return demands(ctx, found)[id(template)].requests


def template_request(ctx: CheckContext, found: WorkloadView, template: PodTemplate, resource: str) -> Decimal:
    """:func:`~gpufleet.rules.gpumath.pod_request` of one template of ``found`` (zero for a resource no container names)."""
    return template_requests(ctx, found, template).get(resource, ZERO)


def template_pools(
    ctx: CheckContext, found: WorkloadView, template: PodTemplate
) -> tuple[tuple[PoolContext, ...], str]:
    """:func:`candidate_pools` of one template of ``found`` (as a tuple) against ``ctx.fleet`` (which must be set)."""
    demand = demands(ctx, found)[id(template)]
    return demand.pools, demand.how
