"""GANG403 gang-exceeds-pool: a gang's minimum needs more GPUs than its pools can ever hold.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; needs a fleet context (`gpufleet lint --fleet MODEL`).

What it checks

For each GPU resource a gang workload asks for, the pods it needs to start: its gang
minimum (Volcano `minAvailable`, Kubeflow `schedulingPolicy.minAvailable`, Kueue
`pod-group-total-count`), taking the pods that need the fewest GPUs, or all its pods when
it sets no minimum. Those pods must fit the pools they may land on (chosen as in
GANG402: only the pools of the system that will place it; among them the node
selector's, else the team's pools, else all), counted two ways:

- **total**: the pods' GPUs against nodeCount × GPUs per node, summed over the pools;
- **packing**: pods do not split across nodes, so a node of G GPUs holds at most
  floor(G / s) pods of s GPUs. With s the smallest per-pod GPU count among those pods,
  the pools hold at most the sum over pools of nodeCount × floor(G / s) such pods.

A TrainJob is judged as the JobSet its (Cluster)TrainingRuntime makes:
with the runtime in the same run, the runtime's pod templates with the TrainJob's
`spec.trainer.numNodes` override (else the runtime's `mlPolicy.numNodes`); without it,
`numNodes` pods of `spec.trainer.resourcesPerNode`. The finding is at `numNodes` (or
`runtimeRef` when the runtime sets the size).

Both are lower bounds on what the gang needs, so a finding is certain, never a guess.
A gang whose single pod exceeds every node is left to GANG402.

Why it is unsafe

Quota and enqueue checks compare aggregates (Volcano #665, Kueue #407). A gang larger
than its pools, or one that would only fit if pods could split across nodes (three 5-GPU
pods on two 8-GPU nodes: 15 GPUs ≤ 16, yet each node holds one such pod), can be
admitted, start some pods and never start the rest, holding the pool's GPUs from every
other gang until it is evicted and requeued, forever.

Example

```yaml
# pool h100: 4 nodes × 8 GPUs
spec:
  minAvailable: 6
  tasks:
  - name: worker
    replicas: 6
    template:
      spec:
        containers:
        - resources: {limits: {nvidia.com/gpu: 6}}   # one pod per node: needs 6 nodes
```

Preferred form

```yaml
spec:
  minAvailable: 4
  tasks:
  - name: worker
    replicas: 4
    template:
      spec:
        containers:
        - resources: {limits: {nvidia.com/gpu: 8}}   # whole nodes, fits 4 × 8
```
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterable, Iterator, Mapping

from gpufleet import workloads
from gpufleet.fleetctx.context import PoolContext
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules import gangs
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.demands import demands
from gpufleet.rules.gpumath import ZERO, fmt, sorted_gpu_resources
from gpufleet.rules.gpus._gang_pods import Group, gang_groups, minimum_pods
from gpufleet.workloads import WORKLOAD_KINDS, WorkloadView, as_map
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.types import SPEC


def _problems(chosen: list[Group], resource: str) -> Iterator[str]:
    by_name: dict[str, PoolContext] = {}
    for g in chosen:
        for p in g.pools:
            by_name[p.name] = p
    pools = by_name.values()
    per_node = {name: p.allocatable.get(resource, ZERO) for name, p in by_name.items()}
    total, pods, smallest = ZERO, 0, chosen[0].gpus  # chosen is sorted by GPUs: the first is the smallest
    for g in chosen:
        if g.gpus > max([per_node[p.name] for p in g.pools], default=ZERO):
            return  # a pod larger than every node: GANG402
        total += g.gpus * g.count
        pods += g.count
    capacity = ZERO
    for p in pools:
        capacity += per_node[p.name] * p.node_count
    if total > capacity:
        yield f"needs {fmt(total)} {resource} to start but its pools {_names(pools, per_node)} hold {fmt(capacity)}"
        return
    slots = sum(int(per_node[p.name] // smallest) * p.node_count for p in pools)
    if pods > slots:
        yield (
            f"needs {pods} pods of at least {fmt(smallest)} {resource} to start, but pods do not split across nodes "
            f"and its pools {_names(pools, per_node)} hold at most {slots} such pods"
        )


def _names(pools: Iterable[PoolContext], per_node: Mapping[str, Decimal]) -> str:
    return ", ".join(f"{p.name} ({p.node_count} nodes × {fmt(per_node[p.name])})" for p in pools)


def _trainjob_path(found: WorkloadView) -> FieldPath:
    """Where a TrainJob's gang size is written: its ``numNodes`` override, else the runtime it names."""
    trainer = as_map(as_map(found.obj.get("spec")).get("trainer"))
    return SPEC.child("trainer", "numNodes") if "numNodes" in trainer else SPEC.child("runtimeRef")


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    found = ctx.run.view(obj)
    if found is None or ctx.fleet is None or not ctx.fleet.pools:
        return
    found = workloads.with_nodes_alone(workloads.with_runtime(found, ctx.run.names))
    if not gangs.is_gang(found, ctx):
        return
    table = demands(ctx, found)
    for resource in sorted_gpu_resources(ctx.fleet):
        groups = gang_groups(found, resource, table)
        chosen = minimum_pods(groups, found.gang_min) if groups else []
        if not chosen:
            continue
        for problem in _problems(chosen, resource):
            uses_min = found.gang_min is not None and 0 < found.gang_min < found.total_pods
            biggest = max(chosen, key=lambda g: g.gpus * g.count)
            path = (
                found.gang_min_path
                if uses_min and found.gang_min_path
                else (biggest.template.replicas_path or biggest.template.path or SPEC)
            )
            if found.kind == "TrainJob":
                path = _trainjob_path(found)  # the templates' paths are the runtime's
            what = (
                f"counting its gang minimum of {found.gang_min} pods"
                if uses_min
                else f"counting all {found.total_pods} pods, as no smaller gang minimum is set"
            )
            yield Violation(
                path,
                f"the gang {problem} ({what}): it can never start",
                "shrink the gang or its per-pod GPUs to fit the pool, or target a larger pool",
            )


RULE = Rule(
    code="GANG403",
    name="gang-exceeds-pool",
    family="gpus",
    severity=Severity.ERROR,
    summary="A gang's minimum needs more GPUs, or more whole-pod GPU slots, than its pools can ever hold.",
    fix="shrink the gang (or its per-pod GPUs) to fit the pool, or target a larger pool",
    kinds=tuple(sorted(WORKLOAD_KINDS)),
    check=check,
    needs_fleet=True,
    needs_objects=True,  # a TrainJob's runtime, when it is in the run
    doc=__doc__ or "",
    predicts=O.NEVER_WHOLE,  # the pools can never hold the gang
)
