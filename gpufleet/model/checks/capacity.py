"""Physical capacity: quota that fits the pool, and pools that do not share nodes.

Kueue and Volcano never compare quota with real inventory (an oversized Volcano tree
makes ``capacity`` reject every enqueue, volcano#4819; oversized Kueue quota admits
gangs that then sit Pending). The nominal quota of all teams and cohorts on a pool
must fit nodeCount × per-node allocatable, per resource, derived ones included. Two
pools whose node labels select the same nodes would count those GPUs twice, by both
quota systems if their systems differ. Registered in ``CHECKS``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Iterable, Iterator

from gpufleet.errors import Issue
from gpufleet.fieldpath import FieldPath
from gpufleet.model.fleet import Fleet
from gpufleet.model.checks.shapes import Amount, Owner, expand, owners, pool_resources, show


def _over(fleet: Fleet, pool) -> tuple[dict[str, Decimal], dict[str, list[tuple[Owner, Amount]]]]:
    """Per resource: the pool's nominal total and every (owner, amount) that adds to it."""
    totals: dict[str, Decimal] = {}
    parts: dict[str, list[tuple[Owner, Amount]]] = {}
    for owner in owners(fleet):
        if pool.name in owner.quota and pool.gpus_per_node > 0:
            for amount in expand(owner, pool, owner.quota[pool.name]):
                totals[amount.resource] = totals.get(amount.resource, Decimal(0)) + amount.nominal
                parts.setdefault(amount.resource, []).append((owner, amount))
    return totals, parts


def _oversubscribed(fleet: Fleet) -> Iterator[Issue]:
    """One issue per pool, GPUs first, at the nominal of the largest contributor (the edited quota, usually)."""
    for pool in fleet.pools:
        totals, parts = _over(fleet, pool)
        capacity = {res: pool.per_node(res) * pool.node_count for res in pool_resources(pool)}
        over = [res for res in pool_resources(pool) if res in totals and totals[res] > capacity[res]]
        if not over:  # no quota: nothing to oversubscribe (even a negative capacity)
            continue
        res = over[0]
        owner, amount = max(reversed(parts[res]), key=lambda p: p[1].nominal)
        who = ", ".join(f"{o.name} {show(a.nominal, res)}" for o, a in parts[res])
        also = f"; also over capacity: {', '.join(over[1:])}" if over[1:] else ""
        yield Issue(amount.path("nominal"),
                    f"nominal {res} quota on pool {pool.name!r} is {show(totals[res], res)} ({who}) but the pool has "
                    f"{show(capacity[res], res)} ({pool.node_count} nodes × {show(pool.per_node(res), res)}){also}",
                    f"lower {owner.name}'s nominal quota (or another team's or cohort's) on pool {pool.name!r}, "
                    "or raise the pool's nodeCount")


def _overlaps(fleet: Fleet) -> Iterator[Issue]:
    pools = fleet.pools
    for a in range(len(pools)):
        for b in range(a + 1, len(pools)):
            la, lb = pools[a].node_labels, pools[b].node_labels
            if any(k in lb and lb[k] != v for k, v in la.items()):
                continue  # one key with two values: the selections are disjoint
            sa, sb = set(la.items()), set(lb.items())
            if sa == sb:
                what = ("a pool claimed by both quota systems" if pools[a].system != pools[b].system
                        else "the same nodes counted twice")
                yield Issue(FieldPath.of("pools", b, "nodeLabels"),
                            f"{what}: pools[{a}] ({pools[a].name!r}, {pools[a].system}) has the same nodeLabels, so both select the same nodes",
                            "give each pool a label value of its own (for example gpufleet.dev/pool: <pool name>)")
            elif sa < sb or sb < sa:
                wide, narrow = (a, b) if sa < sb else (b, a)
                yield Issue(FieldPath.of("pools", wide, "nodeLabels"),
                            f"these nodeLabels select every node of pools[{narrow}] ({pools[narrow].name!r}) as well: the pools overlap",
                            "add a label that only this pool's nodes carry (for example gpufleet.dev/pool: <pool name>)")


def check(fleet: Fleet) -> Iterable[Issue]:
    yield from _oversubscribed(fleet)
    yield from _overlaps(fleet)
