"""GANG401 gpu-request-limit-mismatch: GPU requests the API server will reject at pod creation.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

Every container and init container of every workload pod template, for each GPU
resource (`nvidia.com/gpu`, `amd.com/gpu`, `nvidia.com/mig-*`, and each fleet pool's
`gpuResource`):

- a request with no limit;
- a request different from the limit;
- a request or limit that is not a whole number (or not a quantity at all).

A limit alone is fine. Kubernetes' rules for extended resources, which cannot be
overcommitted: Pod defaulting copies each limit into a missing request
(`SetDefaults_Pod`); validation (`ValidateResourceRequirements`) then rejects a request
without a limit ("Limit must be set for non overcommitable resources"), a request that
differs from its limit ("must be equal to ... limit") and a non-integer amount ("must be
an integer").

Why it is unsafe

The API server checks this only when a *Pod* is created. A Volcano Job, PyTorchJob, MPIJob
or JobSet is accepted with a bad template, admitted against quota (Kueue reads the
requests), and then its controller fails to create pods: the gang is admitted, holds its
quota and never starts, or starts with only the pods whose templates are valid.

Example

```yaml
resources:
  requests:
    nvidia.com/gpu: 8
```

Preferred form

```yaml
resources:
  limits:
    nvidia.com/gpu: 8   # the request defaults to the limit
```
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterator, Mapping

from gpufleet.kubetypes import quantity
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.vocab import MIG_PREFIX
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm, fact, param_key
from gpufleet.rules.celpods import TEMPLATE_RESOURCES, TEMPLATES, any_spec, containers, spec_path
from gpufleet.rules.gpumath import amount, fmt, gpu_resources, is_gpu
from gpufleet.workloads import WORKLOAD_KINDS, as_list, as_map
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.types import is_map

CONTAINER_FIELDS = ("containers", "initContainers")


def _whole(value: Any) -> bool:
    """A quantity that is a whole, non-negative number of devices."""
    parsed = amount(value)
    return parsed is not None and parsed == parsed.to_integral_value() and parsed >= 0


def _container(path: FieldPath, container: Mapping[str, Any], gpus: frozenset[str]) -> Iterator[Violation]:
    resources = as_map(container.get("resources"))
    requests, limits = as_map(resources.get("requests")), as_map(resources.get("limits"))
    if not requests and not limits:
        return
    name = container.get("name") or path
    for resource in sorted({key for key in map(str, (*requests, *limits)) if is_gpu(key, gpus)}):
        if resource in requests and resource in limits:
            request = requests[resource]
            if type(request) is str and request == limits[resource] and _whole(request):
                continue  # the same whole number written twice (the usual form): nothing to report
        amounts: dict[str, Decimal | None] = {}
        for field, values in (("requests", requests), ("limits", limits)):
            if resource not in values:
                continue
            value = amounts[field] = amount(values[resource])
            if value is None or value != value.to_integral_value() or value < 0:
                amounts[field] = None
                yield Violation(
                    path.child("resources", field).key(resource),
                    f"container {name}: {resource} {field[:-1]} {values[resource]!r} is not a whole number of devices; the API server rejects the pod",
                    f"write a whole number of {resource}",
                )
        req, lim = amounts.get("requests"), amounts.get("limits")
        if "requests" in amounts and "limits" not in amounts:
            yield Violation(
                path.child("resources", "requests").key(resource),
                f"container {name} requests {resource} without a limit; the API server rejects the pod (a GPU limit must be set)",
                f"set resources.limits[{resource}] (requests default to limits, so the limit alone is enough)",
            )
        elif req is not None and lim is not None and req != lim:
            yield Violation(
                path.child("resources", "requests").key(resource),
                f"container {name} requests {fmt(req)} {resource} but limits it to {fmt(lim)}; "
                "GPU requests must equal limits and the API server rejects the pod",
                f"make requests[{resource}] equal limits[{resource}], or drop the request",
            )


def _clean(container: Mapping[str, Any], gpus: frozenset[str]) -> bool:
    """Whether :func:`_container` certainly finds nothing: every GPU a whole number written as the limit
    alone or the same in requests and limits (the usual forms), or no GPU at all. Checked first, so that
    a container's path is built only when it has something to report."""
    resources = container.get("resources")
    if type(resources) is not dict:
        resources = as_map(resources)
    requests, limits = resources.get("requests"), resources.get("limits")
    if type(requests) is not dict:  # as_map, inlined for plain dicts
        requests = as_map(requests)
    if type(limits) is not dict:
        limits = as_map(limits)
    if requests == limits:  # the usual pod: the same map twice, so only the GPUs' values matter
        for key, value in requests.items():
            if type(key) is not str or (
                (key in gpus or key.startswith(MIG_PREFIX)) and (type(value) is not str or not _whole(value))
            ):
                return False
        return True
    for key in requests:
        if type(key) is not str:
            return False
        if key in gpus or key.startswith(MIG_PREFIX):
            request = requests[key]
            if type(request) is not str or key not in limits or request != limits[key] or not _whole(request):
                return False
    for key in limits:
        if type(key) is not str or (
            key not in requests and (key in gpus or key.startswith(MIG_PREFIX)) and not _whole(limits[key])
        ):
            return False
    return True


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    found = ctx.run.view(obj)
    if found is None:
        return
    gpus = gpu_resources(ctx.fleet)
    for template in found.templates:  # pod_containers' order (containers, then init containers), paths built lazily
        spec = template.spec
        for field in CONTAINER_FIELDS:
            for i, container in enumerate(as_list(spec.get(field))):
                if is_map(container) and not _clean(container, gpus):
                    yield from _container(template.spec_path.child(field).index(i), container, gpus)


def _cel_whole(value: str) -> str:
    """CEL: ``value`` (an int or a string) is a whole, non-negative quantity (:func:`_whole`; beyond int64 it saturates,
    whole, as the engine's parser does)."""
    q = f"quantity(string({value}))"
    return (
        f"(isQuantity(string({value})) && ({q}.isInteger() || {q}.isGreaterThan(quantity('{int(quantity.MAX)}'))) "
        f"&& !{q}.isLessThan(quantity('0')))"
    )


def _bad_container(c: str) -> str:
    """CEL: container ``c`` has a GPU request without an equal whole limit, or a GPU amount that is not whole."""
    requests, limits = f"{c}.resources.requests", f"{c}.resources.limits"
    gpu = f"({fact('gpuResource', param_key('k'))} || k.startsWith('{MIG_PREFIX}'))"
    has_limits = f"has({c}.resources) && has({limits})"
    bad_request = (
        f"{gpu} && (!{_cel_whole(f'{requests}[k]')} || !({has_limits} && k in {limits}) || !{_cel_whole(f'{limits}[k]')} "
        f"|| quantity(string({requests}[k])).compareTo(quantity(string({limits}[k]))) != 0)"
    )
    return (
        f"(has({c}.resources) && ((has({requests}) && {requests}.exists(k, {bad_request})) "
        f"|| ({has_limits} && {limits}.exists(k, {gpu} && !{_cel_whole(f'{limits}[k]')}))))"
    )


def _bad_spec(spec: str) -> str:
    return f"{containers(spec)}.exists(c, {_bad_container('c')})"


CEL = CelForm(
    resources=TEMPLATE_RESOURCES,
    facts=("gpuResource",),
    variables=(TEMPLATES,),
    checks=(
        CelCheck(
            f"!{any_spec(_bad_spec)}",
            spec_path(_bad_spec),
            "'a container asks for a GPU in requests without an equal limit, or writes a GPU amount that is not a "
            "whole number of devices: the API server rejects the pods after the gang is admitted'",
        ),
    ),
    note="TrainJob: its pod templates are its runtime's, another object",
)

RULE = Rule(
    code="GANG401",
    name="gpu-request-limit-mismatch",
    family="gpus",
    severity=Severity.ERROR,
    summary="A GPU request without a limit, different from its limit, or fractional: pod creation fails after the gang is admitted.",
    fix="set GPUs under resources.limits only (requests default to limits), as whole numbers",
    kinds=tuple(sorted(WORKLOAD_KINDS)),
    check=check,
    doc=__doc__ or "",
    cel=CEL,
    predicts=frozenset({O.REFUSED}) | O.NEVER_WHOLE,  # pod creation fails once the gang is admitted
)
