"""Resource requests of pods, summed the way Kubernetes, Kueue and Volcano sum them: the one implementation.

A container's request falls back to its limit (the API server's defaulting). A pod requests, per resource,
the largest of: its containers plus its sidecars (init containers with ``restartPolicy: Always``), and each
init container's start (that init container plus the sidecars started before it); then ``spec.overhead`` is
added. That is KEP-753's formula as written in ``k8s.io/component-helpers/resource/helpers.go``
(``aggregateContainerResourcesByFn``, ``PodRequests``; v0.37.2), which the kube-scheduler and Kueue
(``pkg/workload/resources.go``, v0.19.2) use, and as Volcano's ``GetPodResourceRequest``
(``pkg/scheduler/api/pod_info.go``, v1.14.1) repeats it. Pod-level ``spec.resources`` (cpu, memory and
hugepages only; Volcano does not read them) are not applied: no rule compares those resources.

Called by GANG003 (minResources), the GPU rules (:mod:`gpufleet.rules.gpumath`), ``advise``, the
sandbox's outcome counts and the gang contract's readers (GPUs per pod), so one pod has one demand
whoever asks. :func:`is_gpu` is the one test of which resources are GPUs (the rules re-export it).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterable, Mapping

from gpufleet.kubetypes import quantity
from gpufleet.kubetypes.vocab import MIG_PREFIX
from gpufleet.workloads.types import as_list, as_map

ZERO = Decimal(0)


def is_gpu(name: str, gpus: frozenset[str]) -> bool:
    """Whether resource ``name`` counts as a GPU: one of ``gpus`` (the fleet's GPU resources) or an NVIDIA MIG slice."""
    return name in gpus or name.startswith(MIG_PREFIX)


def parsed(value: Any) -> Decimal | None:
    """A quantity's value, None when it is not one."""
    try:
        return quantity.parse(value)
    except (quantity.QuantityError, ValueError, ArithmeticError):
        return None


def container_requests(container: Mapping[str, Any]) -> dict[str, Decimal]:
    """Requests of one container (limits stand in for absent requests); unparsable values are skipped."""
    resources = as_map(container.get("resources"))
    requests, limits = as_map(resources.get("requests")), as_map(resources.get("limits"))
    out: dict[str, Decimal] = {}
    for name in {**limits, **requests}:
        value = requests.get(name)
        found = parsed(limits.get(name) if value is None else value)
        if found is not None:
            out[str(name)] = found
    return out


def _add(total: dict[str, Decimal], more: Mapping[str, Decimal]) -> None:
    for name, value in more.items():
        total[name] = total.get(name, ZERO) + value


def _peak(total: dict[str, Decimal], more: Mapping[str, Decimal]) -> None:
    for name, value in more.items():
        total[name] = max(total.get(name, ZERO), value)


def _overhead(spec: Mapping[str, Any]) -> dict[str, Decimal]:
    out: dict[str, Decimal] = {}
    for name, value in as_map(spec.get("overhead")).items():
        found = parsed(value)
        if found is not None:
            out[str(name)] = found
    return out


def pod_requests(spec: Mapping[str, Any], names: Iterable[str] | None = None) -> dict[str, Decimal]:
    """The effective requests of pod spec ``spec``: every resource it names (containers' first), or each of
    ``names`` (in that order, zero when the pod does not ask for it)."""
    spec = as_map(spec)
    total: dict[str, Decimal] = {}
    for container in as_list(spec.get("containers")):
        _add(total, container_requests(as_map(container)))
    sidecars: dict[str, Decimal] = {}
    starts: dict[str, Decimal] = {}
    for init in as_list(spec.get("initContainers")):
        init = as_map(init)
        needs = container_requests(init)
        if init.get("restartPolicy") == "Always":
            _add(total, needs)
            _add(sidecars, needs)
            _peak(starts, sidecars)
        else:
            start = dict(sidecars)
            _add(start, needs)
            _peak(starts, start)
    _peak(total, starts)
    _add(total, _overhead(spec))
    if names is None:
        return {name: max(ZERO, value) for name, value in total.items()}
    return {name: max(ZERO, total.get(name, ZERO)) for name in names}
