"""GANG406 gang-exceeds-quota: a gang needs more GPUs than its team's quota can ever grant it.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; needs a fleet context that carries the teams' quota ceilings (`gpufleet lint
--fleet MODEL`; an older context without them leaves the rule silent).

What it checks

The pods a gang needs to start, counted as GANG403 counts them (its gang minimum, or all
its pods; for a batch Job Kueue may admit partially, `kueue.x-k8s.io/job-min-parallelism`;
taking the pods with the fewest GPUs first), on the pools it may land on, against the most
its team's admitting system will ever grant the team there, in use at once (the fleet
context's `quota` of the team, docs/rendering.md "The team's quota ceiling"):

- **Kueue**: the ClusterQueue's maximum capacity on the pool's flavor: nominal + borrowing
  limit, or, without a borrowing limit, nominal + what its cohort tree can lend; the nominal
  alone outside a cohort. Kueue compares every podset against it and leaves a larger workload
  pending for ever ("current podset request (64) > maximum capacity (32)").
- **Volcano**: the team's own queue capability (nominal + borrowing limit); Volcano's enqueue never
  lets a job whose minimum exceeds it in. A ceiling that comes only from a parent queue's capability
  is not judged: on the sandbox's Volcano v1.14.1 a 12-GPU job in a child queue ran whole under a
  parent capped at 8 (differential case `gen:31:5`).

The gang is never admitted when one pod template's pods exceed the largest ceiling among
its pools (a podset takes one flavor), or all of them exceed the pools' ceilings together (a
Volcano queue's one ceiling counted once). Pools the team has no ceiling on (no quota there,
or a system without quota) leave the gang unjudged; a gang larger than the pools themselves
is GANG403's.

Why it is unsafe

Nothing refuses the job: it is created, its Workload or PodGroup waits for quota that can
never be granted, and it sits pending with no error a user sees, however idle the cluster.

Example

```yaml
# team robotics: nominal 16 + borrowing limit 16 on pool h100 (8 GPUs per node)
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: robotics}
spec:
  parallelism: 8
  completions: 8
  template:
    spec:
      containers:
      - resources: {limits: {nvidia.com/gpu: 8}}   # 64 GPUs > 32
```

Preferred form

```yaml
spec:
  parallelism: 4
  completions: 4          # 32 GPUs: within nominal + borrowing limit
```

or raise the team's `quota.<pool>.borrowingLimit` (or `nominal`) in the fleet model.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterator, Mapping

from gpufleet import workloads
from gpufleet.fleetctx.context import TeamContext, TeamQuota
from gpufleet.kubetypes.fieldpath import FieldPath, get_value
from gpufleet.rules import gangs
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.demands import demands
from gpufleet.rules.gpumath import ZERO, fmt, sorted_gpu_resources
from gpufleet.rules.gpus._gang_pods import Group, gang_groups, minimum_pods
from gpufleet.workloads import WORKLOAD_KINDS, WorkloadView
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.partial import partial_minimum
from gpufleet.workloads.types import SPEC

ENGINE = {"kueue": "Kueue", "volcano": "Volcano"}
_NAMED = {"kueue": "its maximum capacity", "volcano": "its queue capability"}


def parts(q: TeamQuota) -> str:
    """What the ceiling is made of, in words (``nominal 16 + borrowing limit 16``)."""
    res = q.resource
    nominal = f"nominal {fmt(q.nominal, res)}"
    if q.ceiling_from == "nominal":
        return f"{nominal}, no cohort to borrow from"
    if q.ceiling_from in ("borrowingLimit", "capability") and q.borrowing_limit is not None:
        return f"{nominal} + borrowing limit {fmt(q.borrowing_limit, res)}"
    if q.ceiling_from == "capability":
        return f"{nominal}, no cohort to borrow from"
    if q.ceiling_from == "ancestorCapability":
        return f"{nominal}, no borrowing limit: its parent queue's capability"
    lent = fmt(max(ZERO, q.ceiling - q.nominal), res)
    limit = "no borrowing limit" if q.borrowing_limit is None else f"borrowing limit {fmt(q.borrowing_limit, res)}"
    return f"{nominal} + {lent} its cohort can lend, {limit}"


def _raise(team: TeamContext, q: TeamQuota) -> str:
    if q.ceiling_from in ("cohort", "ancestorCapability"):
        return (
            f"give the cohort of team {team.name} more quota on {q.pool}, or raise quota.{q.pool}.nominal of the team"
        )
    if q.ceiling_from == "nominal" or (q.ceiling_from == "capability" and q.borrowing_limit is None):
        return f"raise quota.{q.pool}.nominal of team {team.name} (or put it in a cohort with a borrowing limit)"
    return f"raise quota.{q.pool}.borrowingLimit (or nominal) of team {team.name}"


def _ceilings(team: TeamContext, chosen: list[Group], resource: str) -> dict[str, TeamQuota] | None:
    """The team's ceiling on every pool the pods may use, by pool name; None when any is unknown."""
    out: dict[str, TeamQuota] = {}
    for group in chosen:
        for pool in group.pools:
            q = team.quota_on(pool.name, resource)
            if q is None or q.ceiling_from == "pools":  # no quota bound there (the pools' own: GANG403)
                return None
            if q.ceiling_from == "ancestorCapability":  # a parent Volcano queue's cap: not judged (module doc)
                return None
            out[pool.name] = q
    return out


def _combined(ceilings: Mapping[str, TeamQuota]) -> Decimal:
    """The pools' ceilings together: each flavor's, and a shared (queue) ceiling once per system."""
    shared: dict[str, Decimal] = {}
    total = ZERO
    for q in ceilings.values():
        if q.scope == "queue":
            shared[q.system] = max(shared.get(q.system, ZERO), q.ceiling)
        else:
            total += q.ceiling
    return total + sum(shared.values(), ZERO)


def _problem(chosen: list[Group], ceilings: Mapping[str, TeamQuota]) -> tuple[Decimal, str] | None:
    """(GPUs needed, the ceilings they exceed, in words), or None when the quota can hold them."""
    for group in chosen:
        need = group.gpus * group.count
        best = max((ceilings[p.name] for p in group.pools), key=lambda q: q.ceiling)
        if need > best.ceiling:
            return need, _say([ceilings[p.name] for p in group.pools])
    need = sum((g.gpus * g.count for g in chosen), ZERO)
    if need > _combined(ceilings):
        return need, _say(list(ceilings.values()))
    return None


def _say(quotas: list[TeamQuota]) -> str:
    seen = dict.fromkeys(quotas)
    return "; ".join(
        f"{ENGINE.get(q.system, q.system)} grants at most {fmt(q.ceiling, q.resource)} on pool {q.pool} "
        f"({_NAMED.get(q.system, 'its ceiling')}: {parts(q)})"
        for q in seen
    )


_ABSENT = object()


def _path(found: WorkloadView, chosen: list[Group], minimum_path: FieldPath | None) -> FieldPath:
    """Where the gang's size is written in the object: its minimum, else its largest template's count.

    A template read from another object (a TrainJob's runtime) has paths of that object: the finding
    then points at the object's ``spec``.
    """
    if minimum_path is not None:
        return minimum_path
    biggest = max(chosen, key=lambda g: g.gpus * g.count)
    for path in (biggest.template.replicas_path, biggest.template.path):
        if path is not None and get_value(found.obj, path, _ABSENT) is not _ABSENT:
            return path
    return SPEC


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    found = ctx.run.view(obj)
    if found is None or ctx.fleet is None or not ctx.fleet.pools:
        return
    found = workloads.with_nodes_alone(workloads.with_runtime(found, ctx.run.names))
    team = ctx.fleet.team_for_namespace(found.namespace)
    if team is None or team.quota is None or not gangs.is_gang(found, ctx):
        return
    partial = partial_minimum(found)
    uses_min = found.gang_min is not None and 0 < found.gang_min < found.total_pods
    minimum, minimum_path = (
        (partial.pods, partial.path) if partial else (found.gang_min, found.gang_min_path if uses_min else None)
    )
    table = demands(ctx, found)
    for resource in sorted_gpu_resources(ctx.fleet):
        groups = gang_groups(found, resource, table)
        chosen = minimum_pods(groups, minimum) if groups else []
        ceilings = _ceilings(team, chosen, resource) if chosen else None
        problem = _problem(chosen, ceilings) if ceilings else None
        if problem is None or not ceilings:
            continue
        need, said = problem
        pods = sum(g.count for g in chosen)
        what = f"its minimum of {pods} pods" if minimum_path is not None else f"all {pods} pods"
        quota = max(ceilings.values(), key=lambda q: q.ceiling)  # set: a problem needs ceilings
        yield Violation(
            _path(found, chosen, minimum_path),
            f"the gang needs {fmt(need, resource)} {resource} to start ({what}), more than the quota of team "
            f"{team.name} can ever grant it: {said}; it is never admitted",
            f"shrink the gang to at most {fmt(quota.ceiling, resource)} {resource}, or {_raise(team, quota)} "
            "in the fleet model",
        )


RULE = Rule(
    code="GANG406",
    name="gang-exceeds-quota",
    family="gpus",
    severity=Severity.ERROR,
    summary="A gang's minimum needs more GPUs than its team's quota (nominal + borrowing limit) can ever grant.",
    fix="shrink the gang, or raise the team's quota (borrowing limit or nominal) in the fleet model",
    kinds=tuple(sorted(WORKLOAD_KINDS)),
    check=check,
    needs_fleet=True,
    needs_objects=True,  # a TrainJob's runtime, when it is in the run
    doc=__doc__ or "",
    predicts=frozenset({O.NEVER_ADMITTED}),  # the engine's quota never grants it
)
