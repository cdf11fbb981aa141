"""The most GPUs each team's admitting system will ever grant it on each pool: the fleet context's ``quota``.

Computed from the quota objects as rendered (the ClusterQueues and Cohorts Kueue reads, the
Volcano queues Volcano reads), so the ceiling is the one the engine sees. Called by
:func:`gpufleet.render.context.render_context`; the rules read it back through
:meth:`gpufleet.fleetctx.context.TeamContext.quota_on` (GANG406).

**Kueue** (v0.19.2 ``pkg/cache/scheduler/resource_node.go``, ``potentialAvailable``, which the flavor
assigner compares every podset against: ``fitsResourceQuota`` in
``pkg/scheduler/flavorassigner/flavorassigner.go`` reports "current podset request (N) > maximum
capacity (M)" and the workload waits forever). Per flavor (pool) and resource:

- ``subtree(ClusterQueue) = nominalQuota``; ``subtree(Cohort) = its own nominalQuota + Σ over its
  children of (subtree(child) − local(child))``, where ``local(node) = max(0, subtree − lendingLimit)``
  when the node sets a ``lendingLimit``, else 0 (capacity it never lends out);
- ``potential(root) = subtree(root)``; below a parent, ``potential(node) = local(node) +
  potential(parent)``, capped at ``subtree(node) + borrowingLimit`` when the node sets one.

So a team outside any cohort gets its nominal; with a borrowing limit at most nominal + that limit;
without one, whatever the cohort tree can lend (every member's lendable quota plus the cohorts' own).

**Volcano** (v1.15.1 capacity plugin, ``realCapability``): the team's leaf queue ``capability`` for
the resource as rendered, else the nearest ancestor queue's, else the Volcano pools' total (a queue
with no cap anywhere above it is bounded by the cluster). A queue's capability covers every Volcano
pool together, so each Volcano pool's entry carries the same ceiling (``scope: queue``). Volcano also
subtracts the other queues' ``guarantee`` from the cluster total; that is left out here, so this
ceiling is never lower than Volcano's (a finding against it is certain).

Only the pool's quota resource (its ``gpuResource``) is computed.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Iterable, Mapping

from gpufleet.kubetypes import quantity
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.model.teams import Team
from gpufleet.render import kueue, resources, volcano

ZERO = Decimal(0)


@dataclass(frozen=True)
class Limits:
    """One node's (ClusterQueue or Cohort) quota on one flavor and resource."""

    nominal: Decimal = ZERO
    borrowing: Decimal | None = None
    lending: Decimal | None = None


def _limits(spec: Mapping[str, Any], flavor: str, resource: str) -> Limits:
    for group in spec.get("resourceGroups") or ():
        for fl in group.get("flavors") or ():
            if fl.get("name") != flavor:
                continue
            for res in fl.get("resources") or ():
                if res.get("name") == resource:
                    bl, ll = res.get("borrowingLimit"), res.get("lendingLimit")
                    return Limits(
                        quantity.parse(res.get("nominalQuota", 0)),
                        None if bl is None else quantity.parse(bl),
                        None if ll is None else quantity.parse(ll),
                    )
    return Limits()


class KueueTree:
    """The rendered ClusterQueues and Cohorts of a fleet, and Kueue's ``potentialAvailable`` over them."""

    def __init__(self, cluster_queues: Iterable[Mapping[str, Any]], cohorts: Iterable[Mapping[str, Any]]) -> None:
        self.queues = {q["metadata"]["name"]: q["spec"] for q in cluster_queues}
        self.cohorts = {c["metadata"]["name"]: c["spec"] for c in cohorts}
        self._children: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
        for name, spec in self.cohorts.items():
            if spec.get("parentName"):
                self._children.setdefault(spec["parentName"], []).append((name, spec))
        for name, spec in self.queues.items():
            if spec.get("cohortName"):
                self._children.setdefault(spec["cohortName"], []).append((name, spec))

    def _parent(self, spec: Mapping[str, Any]) -> str | None:
        return spec.get("cohortName") or spec.get("parentName") or None

    def subtree(self, name: str, spec: Mapping[str, Any], fr: tuple[str, str], seen: frozenset[str]) -> Decimal:
        own = _limits(spec, *fr).nominal
        if name not in self.cohorts or name in seen:
            return own
        for child, child_spec in self._children.get(name, ()):
            sub = self.subtree(child, child_spec, fr, seen | {name})
            own += sub - self._local(child_spec, sub, fr)
        return own

    def _local(self, spec: Mapping[str, Any], subtree: Decimal, fr: tuple[str, str]) -> Decimal:
        lending = _limits(spec, *fr).lending
        return max(ZERO, subtree - lending) if lending is not None else ZERO

    def potential(self, name: str, spec: Mapping[str, Any], fr: tuple[str, str], seen: frozenset[str]) -> Decimal:
        """Kueue's ``potentialAvailable(node, flavor/resource)``; a cycle (refused by validation) stops the walk."""
        sub = self.subtree(name, spec, fr, frozenset())
        parent = self._parent(spec)
        if parent is None or name in seen:
            return sub
        parent_spec = self.cohorts.get(parent, {})  # a name with no Cohort object: an implicit cohort
        avail = self._local(spec, sub, fr) + self.potential(parent, parent_spec, fr, seen | {name})
        borrowing = _limits(spec, *fr).borrowing
        return min(avail, sub + borrowing) if borrowing is not None else avail


def _kueue_entry(tree: KueueTree, team: Team, pool: Pool) -> dict[str, Any]:
    spec = tree.queues[team.name]
    fr = (pool.name, pool.gpu_resource)
    limits = _limits(spec, *fr)
    ceiling = tree.potential(team.name, spec, fr, frozenset())
    if not spec.get("cohortName"):
        origin = "nominal"
    elif limits.borrowing is not None and ceiling == limits.nominal + limits.borrowing:
        origin = "borrowingLimit"
    else:
        origin = "cohort"
    return _entry(pool, "kueue", limits.nominal, limits.borrowing, ceiling, origin, "flavor")


def _volcano_entry(queues: Mapping[str, Mapping[str, Any]], team: Team, pool: Pool, total: Decimal) -> dict[str, Any]:
    res = pool.gpu_resource
    leaf = queues[team.name]
    nominal = quantity.parse((leaf.get("deserved") or {}).get(res, 0))
    ceiling, origin, seen = total, "pools", set()
    spec: Mapping[str, Any] | None = leaf
    while spec is not None and id(spec) not in seen:
        seen.add(id(spec))
        cap = (spec.get("capability") or {}).get(res)
        if cap is not None:
            ceiling, origin = quantity.parse(cap), "capability" if spec is leaf else "ancestorCapability"
            break
        spec = queues.get(spec.get("parent") or "")
    borrowing = team.quota[pool.name].borrowing_limit if team.cohort else None
    return _entry(pool, "volcano", nominal, borrowing, ceiling, origin, "queue")


def _entry(
    pool: Pool,
    system: str,
    nominal: Decimal,
    borrowing: Decimal | None,
    ceiling: Decimal,
    origin: str,
    scope: str,
) -> dict[str, Any]:
    res = pool.gpu_resource
    out: dict[str, Any] = {"pool": pool.name, "resource": res, "system": system, "nominal": resources.fmt(res, nominal)}
    if borrowing is not None:
        out["borrowingLimit"] = resources.fmt(res, borrowing)
    out |= {"ceiling": resources.fmt(res, ceiling), "ceilingFrom": origin, "scope": scope}
    return out


def team_ceilings(fleet: Fleet) -> dict[str, list[dict[str, Any]]]:
    """``{team: [entry per pool it holds Kueue or Volcano quota on, in model order]}`` (see the module docstring)."""
    tree = KueueTree(kueue.render_cluster_queues(fleet), kueue.render_cohorts(fleet))
    queues = {q["metadata"]["name"]: q["spec"] for q in volcano.render_volcano_queues(fleet)}
    volcano_totals: dict[str, Decimal] = {}
    for pool in fleet.pools_of("volcano"):
        volcano_totals[pool.gpu_resource] = volcano_totals.get(pool.gpu_resource, ZERO) + pool.capacity
    out: dict[str, list[dict[str, Any]]] = {}
    for team in fleet.teams:
        entries = out.setdefault(team.name, [])
        for pool in fleet.pools:
            if pool.name not in team.quota:
                continue
            if pool.system == "kueue" and team.name in tree.queues:
                entries.append(_kueue_entry(tree, team, pool))
            elif pool.system == "volcano" and team.name in queues:
                entries.append(_volcano_entry(queues, team, pool, volcano_totals[pool.gpu_resource]))
    return out
