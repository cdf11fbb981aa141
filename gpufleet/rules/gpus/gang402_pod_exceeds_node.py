"""GANG402 pod-exceeds-node: a pod asks for more than any node of its pool has.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; needs a fleet context (`gpufleet lint --fleet MODEL`).

What it checks

For every pod template of a workload, the pod's effective request of each resource its
pool reports as allocatable (GPUs, cpu, memory): the sum over containers plus sidecars,
or the largest init container if that is more. The request defaults to the limit. It is
compared with the largest per-node allocatable of the pools the pod may land on, among
the pools of the system that will place it (a Volcano Job, a Volcano queue or
`schedulerName: volcano` → Volcano's pools; a Kueue queue label → Kueue's; the
coscheduling scheduler or a `scheduling.x-k8s.io/pod-group` label → coscheduling's;
else the team's only system; else every pool):

1. pools whose `nodeLabels` the pod's `nodeSelector` or required node affinity select;
2. else the pools of the team owning the workload's namespace;
3. else every pool of that system.

A GPU resource a pool does not list counts as zero there (an `amd.com/gpu` pod cannot
land on an `nvidia.com/gpu` pool); other unlisted resources are not checked.

Why it is unsafe

Quota is a cluster-wide sum, so Kueue and Volcano admit a gang whose single pod no node
can hold (kueue#407). The admitted gang holds its quota, its other pods start and wait
for a peer that stays Pending forever, and with waitForPodsReady it is evicted and
requeued in a loop.

Example

```yaml
# pool h100: 8 GPUs per node
containers:
- name: trainer
  resources:
    limits:
      nvidia.com/gpu: 16
```

Preferred form

```yaml
# two pods of 8 GPUs each (or more ranks with fewer GPUs)
containers:
- name: trainer
  resources:
    limits:
      nvidia.com/gpu: 8
```
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterator, Mapping

from gpufleet.fleetctx.context import PoolContext
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.demands import template_pools, template_requests
from gpufleet.rules.gpumath import container_request, fmt, gpu_resources, is_gpu
from gpufleet.workloads import WORKLOAD_KINDS, PodTemplate, as_map, pod_containers
from gpufleet.workloads import outcomes as O

_NONE = (None, None)
_MINUS_ONE, _ZERO = Decimal(-1), Decimal(0)


def _largest_per_node(
    pools: tuple[PoolContext, ...], resource: str, gpus: frozenset[str]
) -> tuple[Decimal | None, PoolContext | None]:
    """Largest per-node allocatable of ``resource`` over ``pools``; None when some pool does not say."""
    best: tuple[Decimal, PoolContext | None] = (_MINUS_ONE, None)
    for pool in pools:
        allocatable = pool.allocatable
        if resource not in allocatable and not is_gpu(resource, gpus):
            return _NONE
        value = allocatable.get(resource, _ZERO)
        if value > best[0]:
            best = (value, pool)
    return best if best[1] is not None else _NONE


def request_path(template: PodTemplate, resource: str) -> FieldPath:
    """Path of the container entry asking for the most of ``resource``."""
    best = max(
        pod_containers(template.spec, template.spec_path),
        key=lambda pc: container_request(pc[1], resource),
        default=None,
    )
    if best is None:
        return template.spec_path
    resources = as_map(best[1].get("resources"))
    field = "requests" if resource in as_map(resources.get("requests")) else "limits"
    return best[0].child("resources", field).key(resource)


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    found = ctx.run.view(obj)
    if found is None or ctx.fleet is None or not ctx.fleet.pools:
        return
    gpus = gpu_resources(ctx.fleet)
    known: dict[
        tuple[int, str], tuple[Decimal | None, PoolContext | None]
    ] = {}  # templates on the same pools ask alike
    for template in found.templates:
        if template.replicas <= 0:
            continue
        pools, how = template_pools(ctx, found, template)
        for resource, need in template_requests(ctx, found, template).items():
            key = (id(pools), resource)
            largest, pool = known.get(key) or known.setdefault(key, _largest_per_node(pools, resource, gpus))
            if largest is None or pool is None or need <= largest:
                continue
            names = ", ".join(p.name for p in pools)
            pods = "pod" if template.role in (None, "", "pod") else f"{template.role} pod"
            yield Violation(
                request_path(template, resource),
                f"each {pods} asks for {fmt(need, resource)} {resource}, but the largest node of the pools {how} ({names}) "
                f"has {fmt(largest, resource)}: the pod can never be scheduled and its gang never starts",
                f"ask for at most {fmt(largest, resource)} {resource} per pod (split the work over more pods), or select a pool with larger nodes",
            )


RULE = Rule(
    code="GANG402",
    name="pod-exceeds-node",
    family="gpus",
    severity=Severity.ERROR,
    summary="A pod asks for more GPUs (or cpu, memory) than any node of its pool has, so its gang can never start.",
    fix="ask for at most one node's allocatable per pod, or target a pool with larger nodes",
    kinds=tuple(sorted(WORKLOAD_KINDS)),
    check=check,
    needs_fleet=True,
    doc=__doc__ or "",
    predicts=O.NEVER_WHOLE,  # no node fits a pod
)
