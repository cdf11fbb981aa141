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

from gpufleet.errors import Issue, join_path
from gpufleet.model.fleet import Fleet
from gpufleet.model.checks.shapes import expand, owners, pool_resources, show


def _oversubscribed(fleet: Fleet) -> Iterator[Issue]:
    for i, pool in enumerate(fleet.pools):
        totals: dict[str, Decimal] = {}
        parts: dict[str, list[str]] = {}
        for owner in owners(fleet):
            if pool.name in owner.quota and pool.gpus_per_node > 0:
                for amount in expand(owner, pool, owner.quota[pool.name]):
                    totals[amount.resource] = totals.get(amount.resource, Decimal(0)) + amount.nominal
                    parts.setdefault(amount.resource, []).append(f"{owner.name} {show(amount.nominal, amount.resource)}")
        for res in pool_resources(pool):
            capacity = pool.per_node(res) * pool.node_count
            if res in totals and totals[res] > capacity:  # no quota: nothing to oversubscribe (even a negative capacity)
                yield Issue(join_path("pools", i, "nodeCount"),
                            f"nominal {res} quota on pool {pool.name!r} is {show(totals[res], res)} ({', '.join(parts[res])}) but the pool has "
                            f"{show(capacity, res)} ({pool.node_count} nodes × {show(pool.per_node(res), res)})",
                            "lower the teams' or cohorts' nominal quota on this pool, or raise nodeCount")


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
                yield Issue(join_path("pools", b, "nodeLabels"),
                            f"{what}: pools[{a}] ({pools[a].name!r}, {pools[a].system}) has the same nodeLabels, so both select the same nodes",
                            "give each pool a label value of its own (for example gpufleet.dev/pool: <pool name>)")
            elif sa < sb or sb < sa:
                wide, narrow = (a, b) if sa < sb else (b, a)
                yield Issue(join_path("pools", wide, "nodeLabels"),
                            f"these nodeLabels select every node of pools[{narrow}] ({pools[narrow].name!r}) as well: the pools overlap",
                            "add a label that only this pool's nodes carry (for example gpufleet.dev/pool: <pool name>)")


def check(fleet: Fleet) -> Iterable[Issue]:
    yield from _oversubscribed(fleet)
    yield from _overlaps(fleet)
