"""GANG404 min-resources-exceed-pools: a PodGroup's minResources is more than its queue's pools can ever hold.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; needs a fleet context (`gpufleet lint --fleet MODEL`).

What it checks

A PodGroup (Volcano `scheduling.volcano.sh`, or scheduler-plugins
`scheduling.x-k8s.io`) whose `spec.minResources` asks, for some resource, for more
than the pools it may use hold in total (nodeCount × per-node allocatable, summed):

- a Volcano PodGroup: the Volcano pools of the team whose Volcano queue it names
  (`spec.queue`), else of the team owning its namespace, else every Volcano pool;
- a scheduler-plugins PodGroup: the coscheduling pools of its namespace's team, else
  every coscheduling pool.

Resources no pool lists are not checked (a pool that does not report `rdma/ib` may
still have it); GPU resources a pool does not list count as zero there.

Why it is unsafe

Both schedulers hold the whole group back until `minResources` is free at once.
A figure larger than the pools can ever free never fits: the PodGroup stays
`Pending`/`Inqueue` forever and its pods never start, with no error anywhere, while
its queue's share stays reserved in Volcano's enqueue accounting.

Example

```yaml
# pool h100 (Volcano): 4 nodes × 8 GPUs = 32 GPUs
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
spec:
  queue: research
  minMember: 8
  minResources: {nvidia.com/gpu: "64"}
```

Preferred form

```yaml
spec:
  minMember: 4
  minResources: {nvidia.com/gpu: "32"}   # at most the pools' 32 GPUs
```
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterable, Iterator, Mapping

from gpufleet.fleetctx.context import FleetContext, PoolContext, TeamContext
from gpufleet.kubetypes import quantity
from gpufleet.kubetypes.vocab import MIG_PREFIX
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm, fact, fact_value, param_key, resources
from gpufleet.rules.gpumath import fmt, gpu_resources, is_gpu
from gpufleet.workloads import as_map
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.types import SPEC

CODE = "GANG404"
FLEET_SCOPE = "_fleet"
"""The scope of the ``poolSet``/``poolTotal`` facts that is every pool of a system (no team name starts with ``_``)."""
DOT = "'.'"
SYSTEMS = {"scheduling.volcano.sh": "volcano", "scheduling.x-k8s.io": "coscheduling"}


def pool_set(fleet: FleetContext, system: str, team: TeamContext | None) -> list[PoolContext]:
    """The pools a PodGroup of ``system`` may use: ``team``'s pools of that system, else every pool of it."""
    pools = [p for p in fleet.pools if p.system == system]
    own = [p for p in pools if team is not None and p.name in team.pools]
    return own or pools


def _team_pools(
    fleet: FleetContext, system: str, spec: Mapping[str, Any], namespace: str | None
) -> tuple[list[PoolContext], str]:
    queue = spec.get("queue") if system == "volcano" else None
    team = fleet.team_for_volcano_queue(queue) if queue else None
    how = f"of queue {queue!r}" if team is not None else ""
    if team is None:
        team = fleet.team_for_namespace(namespace)
        how = f"of team {team.name}" if team is not None else ""
    own = team is not None and any(p.system == system and p.name in team.pools for p in fleet.pools)
    return pool_set(fleet, system, team), how if own else f"of the fleet's {system} pools"


def capacity(pools: Iterable[PoolContext], resource: str, gpus: frozenset[str]) -> Decimal | None:
    """nodeCount × per-node allocatable of ``resource``, summed over ``pools``; None when no pool lists it and it is
    no GPU (not checked). Also the ``poolTotal`` fleet fact of the CEL form's params."""
    pools = list(pools)
    if not any(resource in p.allocatable for p in pools) and not is_gpu(resource, gpus):
        return None
    return sum((p.allocatable.get(resource, Decimal(0)) * p.node_count for p in pools), Decimal(0))


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    group = str(obj.get("apiVersion", "")).rsplit("/", 1)[0]
    system = SYSTEMS.get(group)
    spec = as_map(obj.get("spec"))
    declared = as_map(spec.get("minResources"))
    if ctx.fleet is None or system is None or not declared:
        return
    pools, how = _team_pools(ctx.fleet, system, spec, as_map(obj.get("metadata")).get("namespace"))
    if not pools:
        return
    gpus = gpu_resources(ctx.fleet)
    names = ", ".join(p.name for p in pools)
    for resource, raw in declared.items():
        try:
            need = quantity.parse(raw)
        except (quantity.QuantityError, ValueError, ArithmeticError):
            continue
        total = capacity(pools, str(resource), gpus)
        if total is not None and need > total:
            yield Violation(
                SPEC.child("minResources").key(str(resource)),
                f"minResources asks for {fmt(need, str(resource))} {resource}, but the pools {how} ({names}) "
                f"hold {fmt(total, str(resource))} in total: the group can never be scheduled",
                f"lower minResources[{resource}] to at most {fmt(total, str(resource))} (and the gang with it), "
                "or give the queue a larger pool",
            )


_SYSTEM = "variables.system"


def _total(resource: str) -> str:
    """CEL: the params key of the scope's total of the CEL string ``resource`` (the ``poolTotal`` fact)."""
    return f"(variables.totals + {param_key(resource)})"


def _exceeds(r: str) -> str:
    """CEL: the declared amount of resource ``r`` is a quantity above the scope's total (zero for an unlisted GPU)."""
    need, total = f"string(variables.declared[{r}])", _total(r)
    gpu = f"({fact('gpuResource', param_key(r))} || {r}.startsWith('{MIG_PREFIX}'))"
    return (
        f"(isQuantity({need}) && ({total} in params.data || {gpu}) && quantity({need}).isGreaterThan("
        f"{total} in params.data ? quantity(params.data[{total}]) : quantity('0')))"
    )


_FIRST = f"variables.declared.filter(r, {_exceeds('r')})[0]"

CEL = CelForm(
    resources=resources(("scheduling.volcano.sh", "podgroups"), ("scheduling.x-k8s.io", "podgroups")),
    facts=("gpuResource", "namespaceTeam", "volcanoQueueTeam", "poolSet", "poolTotal"),
    variables=(
        ("system", "object.apiVersion.startsWith('scheduling.volcano.sh/') ? 'volcano' : 'coscheduling'"),
        ("declared", "has(object.spec) && has(object.spec.minResources) ? object.spec.minResources : {}"),
        ("ns", "has(object.metadata.namespace) ? object.metadata.namespace : request.namespace"),
        (
            "queueTeam",
            f"{_SYSTEM} == 'volcano' && has(object.spec) && has(object.spec.queue) "
            f"&& {fact('volcanoQueueTeam', 'object.spec.queue')} ? {fact_value('volcanoQueueTeam', 'object.spec.queue')} : ''",
        ),
        (
            "team",
            f"variables.queueTeam != '' ? variables.queueTeam : ({fact('namespaceTeam', 'variables.ns')} "
            f"? {fact_value('namespaceTeam', 'variables.ns')} : '')",
        ),
        (
            "scope",
            f"variables.team != '' && {fact('poolSet', f'{_SYSTEM} + {DOT} + variables.team')} ? variables.team : '{FLEET_SCOPE}'",
        ),
        (
            "pools",
            f"{fact('poolSet', f'{_SYSTEM} + {DOT} + {FLEET_SCOPE!r}')} "
            f"? {fact_value('poolSet', f'{_SYSTEM} + {DOT} + variables.scope')} : ''",
        ),
        ("totals", f"'poolTotal.' + {_SYSTEM} + '.' + variables.scope + '.'"),
    ),
    checks=(
        CelCheck(
            f"variables.pools == '' || !variables.declared.exists(r, {_exceeds('r')})",
            f"'spec.minResources[' + {_FIRST} + ']'",
            f"'minResources asks for ' + string(variables.declared[{_FIRST}]) + ' ' + {_FIRST} + ', but the pools ' "
            f"+ variables.pools + ' hold ' + ({_total(_FIRST)} in params.data ? params.data[{_total(_FIRST)}] : '0') "
            "+ ' in total: the group can never be scheduled'",
            f"'lower minResources[' + {_FIRST} + '] to what the pools hold (and the gang with it), "
            "or give the queue a larger pool'",
        ),
    ),
)

RULE = Rule(
    code=CODE,
    name="min-resources-exceed-pools",
    family="gpus",
    severity=Severity.ERROR,
    summary="A PodGroup's minResources is more than the pools of its queue can ever hold, so it never starts.",
    fix="lower minResources to what the queue's pools hold, or give the queue a larger pool",
    kinds=(("scheduling.volcano.sh", "PodGroup"), ("scheduling.x-k8s.io", "PodGroup")),
    check=check,
    needs_fleet=True,
    doc=__doc__ or "",
    cel=CEL,
    predicts=O.NEVER_WHOLE,  # the pools can never hold the minResources
)
