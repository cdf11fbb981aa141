"""The Volcano queue tree a fleet renders to, checked the way Volcano's queue webhook does.

The same numbers as ``gpufleet.render.volcano``: a team with quota on a Volcano pool
becomes a leaf queue under its cohort's queue (or ``root``; every queue sits under
``root`` unless the capacity plugin runs with ``hierarchy``): deserved = nominal,
capability = nominal + borrowingLimit (no cap when unset; = nominal without a
cohort), guarantee = nominal − lendingLimit (where set and below nominal). A cohort's
queue has deserved and guarantee = Σ children + its own, and capability = deserved +
its borrowingLimit when it sets one: the caps the model states. ``gpufleet.render.volcano``
also writes the caps the tree implies (a root cohort's total; a parent's cap on a cohort
without a limit) and lowers a team's capability to its cohort's, so those never make a
valid model invalid (docs/model.md). Volcano rejects, per resource,
guarantee > deserved > capability, children whose deserved or guarantee sum above the
parent's, a capability above the nearest capped ancestor's, and depth above 5.
Checked per Volcano pool (queues sum the pools, so per-pool validity is enough).
:func:`tree` is the derivation; ``volcano.py`` holds the scheduler checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.checks.shapes import Amount, Owner, expand, owners, parent_chain, show
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.model.scaling import quota_first
from gpufleet.yamlin.errors import Issue

MAX_DEPTH = 5


@dataclass
class Node:
    owner: Owner
    parent: str | None  # cohort name; None = root
    own: dict[str, Amount] = field(default_factory=dict)
    deserved: dict[str, Decimal] = field(default_factory=dict)
    guarantee: dict[str, Decimal | None] = field(default_factory=dict)
    capability: dict[str, Decimal | None] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)
    in_cohort: bool = False

    def path(self, resource: str, name: str) -> FieldPath:
        amount = self.own.get(resource)
        return amount.path(name) if amount else self.owner.quota_path()


def _own_guarantee(a: Amount | None) -> Decimal | None:
    return a.nominal - a.lending if a and a.lending is not None and a.nominal > a.lending else None


def _leaf(node: Node) -> None:
    for res, a in node.own.items():
        node.deserved[res] = a.nominal
        if not node.in_cohort:
            node.capability[res] = a.nominal  # a team without a cohort may not borrow
        else:
            node.capability[res] = None if a.borrowing is None else a.nominal + a.borrowing
        node.guarantee[res] = _own_guarantee(a)


def _cohort(node: Node, resources: list[str]) -> None:
    for res in resources:
        a = node.own.get(res)
        deserved = sum((c.deserved.get(res, Decimal(0)) for c in node.children), Decimal(0)) + (a.nominal if a else 0)
        parts = [g for g in [*(c.guarantee.get(res) for c in node.children), _own_guarantee(a)] if g is not None]
        node.deserved[res] = deserved
        node.guarantee[res] = sum(parts, Decimal(0)) if parts else None
        node.capability[res] = deserved + a.borrowing if a and a.borrowing is not None else None


def hierarchical(fleet: Fleet) -> bool:
    """Whether cohorts become Volcano parent queues (capacity plugin with hierarchy)."""
    return fleet.volcano.plugin == "capacity" and fleet.volcano.hierarchy


def tree(fleet: Fleet, pool: Pool) -> dict[str, Node]:
    """Queue name -> Node for one Volcano pool (cohorts in dangling or cyclic chains are left out)."""
    nodes: dict[str, Node] = {}
    nested = hierarchical(fleet)
    for owner in owners(fleet):
        start = fleet.teams[owner.index].cohort if owner.kind == "teams" else fleet.cohorts[owner.index].parent
        if start is not None and parent_chain(fleet, start) is None:
            continue
        if (owner.kind == "teams" and pool.name not in owner.quota) or (owner.kind == "cohorts" and not nested):
            continue
        entry = owner.quota.get(pool.name)
        own = {a.resource: a for a in expand(owner, pool, entry)} if entry and pool.gpus_per_node > 0 else {}
        nodes[owner.name] = Node(
            owner, start if nested else None, own, in_cohort=owner.kind == "teams" and start is not None
        )
    resources = quota_first(pool)  # the quota resource first, so its problem is the one reported
    depth = {name: len(parent_chain(fleet, n.parent) or []) for name, n in nodes.items()}
    for name in sorted(nodes, key=lambda n: -depth[n]):
        node = nodes[name]
        if node.owner.kind == "teams":
            _leaf(node)
        else:
            _cohort(node, resources)
        if node.parent in nodes:
            nodes[node.parent].children.append(node)
    return nodes


_ORDER = {
    "lendingLimit": ("guarantee", "keep lendingLimit between 0 and nominal"),
    "borrowingLimit": ("capability", "use a borrowingLimit of 0 or more"),
}
"""Per limit that puts a queue's amounts out of order (guarantee <= deserved <= capability): its rule and its fix."""


def _above(
    node: Node, res: str, limit: str, low: tuple[str, Decimal | None], high: tuple[str, Decimal | None]
) -> Iterator[tuple[str, Issue]]:
    """(rule, issue) at ``limit`` when the queue's ``low`` amount exceeds its ``high`` one (either unset: none)."""
    (low_name, low_amount), (high_name, high_amount) = low, high
    if low_amount is None or high_amount is None or low_amount <= high_amount:
        return
    rule, fix = _ORDER[limit]
    yield (
        rule,
        Issue(
            node.path(res, limit),
            f"Volcano queue {node.owner.name!r}: {low_name} {show(low_amount, res)} > {high_name} {show(high_amount, res)} for {res}",
            fix,
        ),
    )


def _node_issues(node: Node, nodes: dict[str, Node]) -> Iterator[tuple[str, Issue]]:
    """(rule, issue) pairs; the rule lets :func:`check` keep one resource per path and rule."""
    name = node.owner.name
    for res, deserved in node.deserved.items():
        g, cap = node.guarantee.get(res), node.capability.get(res)
        yield from _above(node, res, "lendingLimit", ("guarantee", g), ("deserved", deserved))
        yield from _above(node, res, "borrowingLimit", ("deserved", deserved), ("capability", cap))
        for what, mine in (("deserved", deserved), ("guarantee", g)):
            total = sum((getattr(c, what).get(res) or Decimal(0) for c in node.children), Decimal(0))
            if node.children and total > (mine or 0):
                yield (
                    what,
                    Issue(
                        node.path(res, "nominal"),
                        f"Volcano queue {name!r}: its children's {what} sums to {show(total, res)} for {res}, above its own {show(mine or Decimal(0), res)}",
                        "use a cohort nominal quota of 0 or more",
                    ),
                )
        ancestor = nodes.get(node.parent or "")
        while ancestor is not None and ancestor.capability.get(res) is None:
            ancestor = nodes.get(ancestor.parent or "")
        limit = ancestor.capability.get(res) if ancestor is not None else None
        if cap is not None and ancestor is not None and limit is not None and cap > limit:
            yield (
                "ancestor",
                Issue(
                    node.path(res, "borrowingLimit"),
                    f"Volcano queue {name!r}: capability {show(cap, res)} for {res} exceeds the capability {show(limit, res)} of its ancestor {ancestor.owner.name!r}",
                    f"lower this borrowingLimit, or raise the borrowingLimit of cohort {ancestor.owner.name!r}",
                ),
            )


def _depth(fleet: Fleet) -> Iterator[Issue]:
    volcano = {p.name for p in fleet.pools_of("volcano")}
    if not hierarchical(fleet):
        return
    for i, team in enumerate(fleet.teams):
        chain = parent_chain(fleet, team.cohort)
        if chain and volcano & set(team.quota) and len(chain) + 1 > MAX_DEPTH:
            route = " -> ".join(["root", *reversed(chain), team.name])
            yield Issue(
                FieldPath.of("teams", i, "cohort"),
                f"Volcano queue depth {len(chain) + 1} ({route}) exceeds Volcano's maximum of {MAX_DEPTH}",
                f"nest at most {MAX_DEPTH - 1} cohorts above a team with Volcano quota",
            )


def check(fleet: Fleet) -> Iterable[Issue]:
    first: dict[tuple[FieldPath | str, str], Issue] = {}
    for pool in fleet.pools_of("volcano"):
        nodes = tree(fleet, pool)
        for node in nodes.values():
            for rule, issue in _node_issues(node, nodes):
                first.setdefault((issue.path, rule), issue)  # derived resources repeat the GPU's problem
    yield from first.values()
    yield from _depth(fleet)
