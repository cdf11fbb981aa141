"""Physical capacity: quota that fits the pool, and pools that do not share nodes.

Kueue and Volcano never compare quota with real inventory (an oversized Volcano tree
makes ``capacity`` reject every enqueue, volcano#4819; oversized Kueue quota admits
gangs that then sit Pending). The nominal quota of all teams and cohorts on a pool
must fit nodeCount × per-node allocatable, per resource, derived ones included. Two
pools whose node labels select the same nodes would count those GPUs twice, by both
quota systems if their systems differ. Registered in ``CHECKS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Iterable, Iterator, Sequence

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.checks.shapes import Amount, Owner, every, expand, owners, show
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.model.scaling import quota_first, scale
from gpufleet.yamlin.errors import Issue


def _over(fleet: Fleet, pool: Pool) -> tuple[dict[str, Decimal], dict[str, list[tuple[Owner, Amount]]]]:
    """Per resource: the pool's nominal total and every (owner, amount) that adds to it.

    A derived resource's total is the derived owners' GPUs scaled once (:func:`scale`), not a sum
    of scaled shares: a pool shared out exactly is then exactly full, with no rounding of cpu / gpus
    (issue 36)."""
    totals: dict[str, Decimal] = {}
    derived_gpus: dict[str, Decimal] = {}
    parts: dict[str, list[tuple[Owner, Amount]]] = {}
    for owner in owners(fleet):
        if pool.name in owner.quota and pool.gpus_per_node > 0:
            entry = owner.quota[pool.name]
            for amount in expand(owner, pool, entry):
                parts.setdefault(amount.resource, []).append((owner, amount))
                if amount.resource != pool.gpu_resource and amount.resource not in entry.resources:
                    derived_gpus[amount.resource] = derived_gpus.get(amount.resource, Decimal(0)) + entry.nominal
                else:
                    totals[amount.resource] = totals.get(amount.resource, Decimal(0)) + amount.nominal
    for res, gpus in derived_gpus.items():
        totals[res] = totals.get(res, Decimal(0)) + (scale(gpus, pool.per_node(res), pool.gpus_per_node) or Decimal(0))
    return totals, parts


@dataclass(frozen=True)
class Overfill:
    """One pool whose nominal quota exceeds its capacity, GPUs first."""

    index: int
    pool: Pool
    resources: list[str]
    totals: dict[str, Decimal]
    capacity: dict[str, Decimal]
    parts: dict[str, list[tuple[Owner, Amount]]]

    def describe(self) -> str:
        res = self.resources[0]
        who = ", ".join(f"{o.name} {show(a.nominal, res)} ({a.path('nominal')})" for o, a in self.parts[res])
        also = f"; also over capacity: {', '.join(self.resources[1:])}" if self.resources[1:] else ""
        pool = self.pool
        return (
            f"nominal {res} quota on pool {pool.name!r} is {show(self.totals[res], res)} ({who}) but the pool has "
            f"{show(self.capacity[res], res)} ({pool.node_count} nodes × {show(pool.per_node(res), res)}){also}"
        )


def overfills(fleet: Fleet) -> Iterator[Overfill]:
    for i, pool in enumerate(fleet.pools):
        totals, parts = _over(fleet, pool)
        capacity = {res: pool.per_node(res) * pool.node_count for res in quota_first(pool)}
        over = [res for res in quota_first(pool) if res in totals and totals[res] > capacity[res]]
        if over:  # no quota: nothing to oversubscribe (even a negative capacity)
            yield Overfill(i, pool, over, totals, capacity, parts)


def _oversubscribed(fleet: Fleet) -> Iterator[Issue]:
    """One issue per pool, at the pool: without history nothing says which contribution is the edit (issue 19)."""
    for over in overfills(fleet):
        yield Issue(
            FieldPath.of("pools", over.index),
            over.describe(),
            f"lower one of these nominal quotas on pool {over.pool.name!r}, or raise pools[{over.index}].nodeCount; "
            "`gpufleet diff` against the last good model (--git origin/main) names the edit that overfilled it",
        )


def blame(base: Fleet, new: Fleet) -> list[Issue]:
    """The overfilled pools of ``new``, each at the edit since ``base`` that overfilled it (used by ``gpufleet diff``).

    The edit is the pool's capacity shrinking (``nodeCount``, else its per-node allocatable), else the
    contribution that is new or grew most. A pool ``base`` overfilled already keeps its pool-level issue.
    """
    return list(_blamed(base, new).values())


def _blamed(base: Fleet, new: Fleet) -> dict[int, Issue]:
    before = {p.name: p for p in base.pools}
    old_over = {o.pool.name for o in overfills(base)}
    out: dict[int, Issue] = {}
    for over in overfills(new):
        old = before.get(over.pool.name)
        if old is not None and old.name not in old_over:
            out[over.index] = _edit(base, old, over)
    return out


def _edit(base: Fleet, old: Pool, over: Overfill) -> Issue:
    res, pool, at = over.resources[0], over.pool, FieldPath.of("pools", over.index)
    if pool.node_count < old.node_count or pool.per_node(res) < old.per_node(res):
        field = "nodeCount" if pool.node_count < old.node_count else "allocatable"
        change = (
            f"nodeCount {old.node_count} -> {pool.node_count}"
            if field == "nodeCount"
            else f"{res} per node {show(old.per_node(res), res)} -> {show(pool.per_node(res), res)}"
        )
        return Issue(
            at.child(field),
            f"this edit ({change}) leaves pool {pool.name!r} below its quota: {over.describe()}",
            f"keep the pool's capacity, or first lower the nominal quotas on pool {pool.name!r}",
        )
    was = {(o.kind, o.name): a.nominal for o, a in _over(base, old)[1].get(res, [])}
    grown = sorted(
        ((a.nominal - was.get((o.kind, o.name), Decimal(0)), o, a) for o, a in over.parts[res]), key=lambda g: -g[0]
    )
    delta, owner, amount = grown[0]
    earlier = was.get((owner.kind, owner.name))
    what = f"new {owner.kind[:-1]} {owner.name!r}" if earlier is None else f"{owner.kind[:-1]} {owner.name!r}'s nominal"
    change = (
        f"{show(amount.nominal, res)}" if earlier is None else f"{show(earlier, res)} -> {show(amount.nominal, res)}"
    )
    return Issue(
        amount.path("nominal"),
        f"this edit ({what} quota {change}) overfills pool {pool.name!r}: {over.describe()}",
        f"lower {owner.name}'s nominal on pool {pool.name!r} to at most "
        f"{show(amount.nominal - (over.totals[res] - over.capacity[res]), res)}, or raise pools[{over.index}].nodeCount",
    )


def _overlaps(fleet: Fleet) -> Iterator[Issue]:
    pools = fleet.pools
    for a in range(len(pools)):
        for b in range(a + 1, len(pools)):
            la, lb = pools[a].node_labels, pools[b].node_labels
            if any(k in lb and lb[k] != v for k, v in la.items()):
                continue  # one key with two values: the selections are disjoint
            sa, sb = set(la.items()), set(lb.items())
            if sa == sb:
                what = (
                    "a pool claimed by both quota systems"
                    if pools[a].system != pools[b].system
                    else "the same nodes counted twice"
                )
                yield Issue(
                    FieldPath.of("pools", b, "nodeLabels"),
                    f"{what}: pools[{a}] ({pools[a].name!r}, {pools[a].system}) has the same nodeLabels, so both select the same nodes",
                    "give each pool a label value of its own (for example gpufleet.dev/pool: <pool name>)",
                )
            elif sa < sb or sb < sa:
                wide, narrow = (a, b) if sa < sb else (b, a)
                yield Issue(
                    FieldPath.of("pools", wide, "nodeLabels"),
                    f"these nodeLabels select every node of pools[{narrow}] ({pools[narrow].name!r}) as well: the pools overlap",
                    "add a label that only this pool's nodes carry (for example gpufleet.dev/pool: <pool name>)",
                )


def check(fleet: Fleet) -> Iterable[Issue]:
    return every(fleet, _oversubscribed, _overlaps)


def with_history(base: Fleet, new: Fleet, issues: Sequence[Issue]) -> list[Issue]:
    """``issues`` of ``new`` with each pool-level overfill issue replaced by :func:`blame`'s edit."""
    edits: dict[FieldPath | str, Issue] = {
        FieldPath.of("pools", index): issue for index, issue in _blamed(base, new).items()
    }
    return [edits[i.path] if i.path in edits and i.message.startswith("nominal ") else i for i in issues]
