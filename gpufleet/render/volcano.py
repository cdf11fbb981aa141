"""Volcano ``scheduling.volcano.sh/v1beta1`` Queues and the matching ``volcano-scheduler.conf``.

One leaf Queue per team with quota on Volcano pools; with the capacity plugin and
``hierarchy`` on, one parent Queue per cohort whose subtree has Volcano quota (parent:
its parent cohort's queue, or ``root``), otherwise every leaf sits under ``root``.
Leaf: deserved = nominal, capability = nominal + borrowing limit lowered to its cohort
queue's (no cap when unset; = nominal for a team without a cohort, which may not
borrow), guarantee = nominal - lending limit where a lending limit is set. Parent:
deserved and guarantee = the sum of its children plus its own quota (Volcano's webhook
requires the parent to cover its children); capability, always written, is what the
subtree may hold (:func:`_parent_capabilities`, :func:`_children_bound`): Volcano v1.14
checks a child against its parent's capability as written (an unset one is zero), v1.15
against the nearest ancestor that sets one, and both accept these trees. ``weight``,
``reclaimable``, ``parent`` and ``dequeueStrategy`` are written explicitly so the
webhook and queue controller change nothing.

A parent queue is named ``<cohort>-<digest of the quota of its whole subtree>`` and labelled ``gpufleet.dev/cohort: <cohort>``. Volcano's queue webhook checks the sum
of the children against the parent on every quota change of either, and Pulumi
updates a parent before its children: an in-place parent holding the exact sum could
never shrink (the parent would drop below the children's old values) nor let siblings
trade quota (Pulumi updates siblings in parallel: one may grow first). A parent whose
subtree's quota changes is instead a NEW queue, created with the new sums before the children; each child then moves to it
(its ``parent`` changes: checked against the new parent, which already fits every
child's new value) and the old parent, empty, is deleted last. See docs/diff.md. The scheduler
conf loads ``capacity`` or ``proportion`` (never both) to read exactly these fields.
Every queue carries ``affinity.nodeGroupAffinity`` (required) listing the Volcano
pools' ``volcano.sh/nodegroup-name`` values, and the conf loads the ``nodegroup``
plugin (strict by default, volcano v1.15.1 ``pkg/scheduler/plugins/nodegroup``:
nodes without the label are unfit), so Volcano gangs land only on Volcano pools.
Called by :func:`gpufleet.render.render_all` and the Pulumi Volcano component.
"""

from __future__ import annotations

import hashlib
import json
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from gpufleet.kubetypes.vocab import COHORT_LABEL, VOLCANO_NODEGROUP_LABEL
from gpufleet.model import scaling
from gpufleet.model.fleet import Fleet
from gpufleet.model.teams import Cohort, Team
from gpufleet.render import resources, tree
from gpufleet.render.meta import VOLCANO_API, manifest, metadata
from gpufleet.yamlin import yamlio

ROOT = "root"
Totals = dict[str, Decimal]


def hierarchical(fleet: Fleet) -> bool:
    return fleet.volcano.plugin == "capacity" and fleet.volcano.hierarchy


def weight(value: Decimal) -> int:
    """Volcano queue weight: an integer from 1 to 65535."""
    return max(1, min(65535, int(value.to_integral_value(rounding=ROUND_HALF_UP))))


def _add(into: Totals, res: str, amount: Decimal) -> None:
    into[res] = into.get(res, Decimal(0)) + amount


def _own(fleet: Fleet, owner: Team | Cohort, may_borrow: bool) -> tuple[Totals, Totals | None, Totals]:
    """(deserved, capability or None for no cap, guarantee) of an owner's own Volcano quota."""
    deserved: Totals = {}
    capability: Totals | None = {}
    guarantee: Totals = {}
    for pool, pq in tree.system_pools(fleet, owner, "volcano"):
        for res, a in scaling.scaled_quota(pool, pq).items():
            _add(deserved, res, a.nominal)
            if a.lending_limit is not None and a.nominal > a.lending_limit:
                _add(guarantee, res, a.nominal - a.lending_limit)
            if capability is not None:
                if not may_borrow:
                    _add(capability, res, a.nominal)
                elif a.borrowing_limit is not None:
                    _add(capability, res, a.nominal + a.borrowing_limit)
                else:
                    capability = None
    return deserved, capability, guarantee


def _own_borrowing(fleet: Fleet, cohort: Cohort) -> Totals:
    """Per resource, the cohort's own scaled borrowing limit; a resource with any unlimited pool is left out."""
    limits: Totals = {}
    unlimited: set[str] = set()
    for pool, pq in tree.system_pools(fleet, cohort, "volcano"):
        for res, a in scaling.scaled_quota(pool, pq).items():
            if a.borrowing_limit is None:
                unlimited.add(res)
            else:
                _add(limits, res, a.borrowing_limit)
    return {res: amount for res, amount in limits.items() if res not in unlimited}


def _resource_list(totals: Totals) -> dict[str, str]:
    return {res: resources.fmt(res, totals[res]) for res in scaling.resource_order(totals)}


def _queue(
    fleet: Fleet,
    name: str,
    parent: str,
    w: Decimal,
    reclaimable: bool,
    deserved: Totals,
    capability: Totals | None,
    guarantee: Totals,
    team: str | None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "weight": weight(w),
        "reclaimable": reclaimable,
        "parent": parent,
        "dequeueStrategy": "traverse",
    }
    if deserved:
        spec["deserved"] = _resource_list(deserved)
    if capability:
        spec["capability"] = _resource_list(capability)
    if guarantee:
        spec["guarantee"] = {"resource": _resource_list(guarantee)}
    groups = node_groups(fleet)
    if groups:
        spec["affinity"] = {"nodeGroupAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": groups}}
    return manifest(VOLCANO_API, "Queue", metadata(fleet, name, team=team), spec=spec)


def _quota_fields(spec: dict[str, Any]) -> dict[str, Any]:
    return {k: spec[k] for k in ("deserved", "guarantee", "capability") if k in spec}


def parent_queue_name(cohort: str, signature: Any) -> str:
    """``<cohort>-<8 hex>``: a digest of the subtree's quota, so any quota change below makes a new parent queue."""
    digest = hashlib.sha256(json.dumps(signature, sort_keys=True).encode()).hexdigest()[:8]
    return f"{cohort}-{digest}"


def node_groups(fleet: Fleet) -> list[str]:
    """The ``volcano.sh/nodegroup-name`` values of the Volcano pools: every queue is pinned to them."""
    return sorted(
        {
            p.node_labels[VOLCANO_NODEGROUP_LABEL]
            for p in fleet.pools_of("volcano")
            if VOLCANO_NODEGROUP_LABEL in p.node_labels
        }
    )


def volcano_teams(fleet: Fleet) -> list[Team]:
    return [t for t in fleet.teams if tree.system_quota(fleet, t, "volcano")]


def render_volcano_queues(fleet: Fleet) -> list[dict[str, Any]]:
    """Parent queues (parents first), then leaf queues in team order."""
    cohorts = tree.cohorts_for(fleet, "volcano") if hierarchical(fleet) else []
    parent_of = {c.name: (c.parent or ROOT) for c in cohorts}
    sums: dict[str, tuple[Totals, Totals]] = {c.name: ({}, {}) for c in cohorts}

    def roll_up(parent: str, deserved: Totals, guarantee: Totals) -> None:
        while parent in sums:
            for res, amount in deserved.items():
                _add(sums[parent][0], res, amount)
            for res, amount in guarantee.items():
                _add(sums[parent][1], res, amount)
            parent = parent_of[parent]

    teams = []
    for team in volcano_teams(fleet):
        deserved, capability, guarantee = _own(fleet, team, may_borrow=team.cohort is not None)
        parent = team.cohort if team.cohort in sums else ROOT
        roll_up(parent, deserved, guarantee)
        teams.append((team, parent, deserved, capability, guarantee))
    for cohort in cohorts:
        deserved, _, guarantee = _own(fleet, cohort, may_borrow=True)
        roll_up(cohort.name, deserved, guarantee)
    caps = _parent_capabilities(fleet, cohorts, parent_of, {c: s[0] for c, s in sums.items()})
    leaves, leaf_caps = [], []
    for team, parent, deserved, capability, guarantee in teams:
        if capability is not None and parent in caps:
            capability = _within(capability, caps[parent])
        leaf_caps.append((parent, capability))
        leaves.append(
            _queue(
                fleet,
                team.name,
                parent,
                team.fair_share_weight,
                team.volcano_reclaimable,
                deserved,
                capability,
                guarantee,
                team.name,
            )
        )
    _children_bound(caps, parent_of, {c: s[0] for c, s in sums.items()}, leaf_caps)
    parents = [
        _queue(
            fleet,
            c.name,
            parent_of[c.name],
            c.fair_share_weight,
            True,
            deserved=sums[c.name][0],
            capability=caps[c.name] or None,
            guarantee=sums[c.name][1],
            team=None,
        )
        for c in cohorts
    ]
    _name_parents(parents, leaves)
    return parents + leaves


def _within(capability: Totals, ceiling: Totals) -> Totals:
    """``capability`` with each resource the ``ceiling`` names lowered to it (never raised)."""
    return {res: min(amount, ceiling[res]) if res in ceiling else amount for res, amount in capability.items()}


def _parent_capabilities(
    fleet: Fleet, cohorts: list[Cohort], parent_of: dict[str, str], deserved: dict[str, Totals]
) -> dict[str, Totals]:
    """Each cohort queue's capability, parents first: what its subtree may hold at most, per resource.

    A root cohort's subtree borrows only inside itself, so it holds at most its own total (its
    deserved). A nested cohort holds at most its total plus its own borrowing limit (where every
    pool sets one), and never more than its parent may hold. Written for every resource: Volcano
    v1.14 checks a child's capability against its parent's as written, a resource the parent does
    not name counting as zero; v1.15 against the nearest ancestor that names it.
    """
    caps: dict[str, Totals] = {}
    for cohort in cohorts:
        own = deserved[cohort.name]
        above = caps.get(parent_of[cohort.name])
        borrowing = _own_borrowing(fleet, cohort) if above is not None else {}
        cap: Totals = {}
        for res, amount in own.items():
            ceiling = above.get(res, amount) if above is not None else amount
            cap[res] = min(ceiling, amount + borrowing[res]) if res in borrowing else ceiling
        caps[cohort.name] = cap
    return caps


def _children_bound(
    caps: dict[str, Totals],
    parent_of: dict[str, str],
    deserved: dict[str, Totals],
    leaves: list[tuple[str, Totals | None]],
) -> None:
    """Lower each cohort's capability to what its children may hold together, children first.

    A parent queue holds no job of its own: its subtree holds at most the sum of its
    children's capabilities, where every child has one for the resource. Never below its
    deserved (Volcano requires deserved <= capability).
    """
    children: dict[str, list[Totals | None]] = {name: [] for name in caps}
    for parent, capability in leaves:
        if parent in children:
            children[parent].append(capability)
    for name in reversed(list(caps)):  # children before parents (``caps`` is parents first)
        below = children[name]
        cap = caps[name]
        for res in cap:
            if below and all(c is not None and res in c for c in below):
                bound = sum((c[res] for c in below if c is not None), Decimal(0))
                cap[res] = max(deserved[name].get(res, Decimal(0)), min(cap[res], bound))
        if parent_of[name] in children:
            children[parent_of[name]].append(cap)


def _name_parents(parents: list[dict[str, Any]], leaves: list[dict[str, Any]]) -> None:
    """Give each parent queue its digest name and point every ``parent`` field at it.

    The digest covers the parent's own quota fields and, recursively, every queue below
    it by name: a change anywhere in a subtree renames each ancestor, so no child ever
    changes quota under a parent that was sized for the old values.
    """
    children: dict[str, list[dict[str, Any]]] = {}
    for queue in (*parents, *leaves):
        children.setdefault(queue["spec"]["parent"], []).append(queue)

    def signature(queue: dict[str, Any]) -> dict[str, Any]:
        below = {q["metadata"]["name"]: signature(q) for q in children.get(queue["metadata"]["name"], ())}
        return {"quota": _quota_fields(queue["spec"]), "children": below}

    renamed = {q["metadata"]["name"]: parent_queue_name(q["metadata"]["name"], signature(q)) for q in parents}
    for queue in parents:
        cohort = queue["metadata"]["name"]
        queue["metadata"]["name"] = renamed[cohort]
        queue["metadata"]["labels"][COHORT_LABEL] = cohort
    for queue in (*parents, *leaves):
        queue["spec"]["parent"] = renamed.get(queue["spec"]["parent"], queue["spec"]["parent"])


def render_scheduler_conf(fleet: Fleet) -> dict[str, Any]:
    settings = fleet.volcano
    share: dict[str, Any] = {"name": settings.plugin}
    if hierarchical(fleet):
        share["enableHierarchy"] = True
    return {
        "actions": ", ".join(settings.actions),
        "tiers": [
            {"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
            {
                "plugins": [
                    {"name": "overcommit", "arguments": {"overcommit-factor": float(settings.overcommit_factor)}},
                    {"name": "drf"},
                    {"name": "predicates"},
                    share,
                    {"name": "nodegroup"},
                    {"name": "nodeorder"},
                    {"name": "binpack"},
                ]
            },
        ],
    }


def render_scheduler_conf_yaml(fleet: Fleet) -> str:
    return yamlio.dump(render_scheduler_conf(fleet))


def render_volcano_values(fleet: Fleet) -> dict[str, Any]:
    """Helm values for the Volcano chart: only the scheduler conf override."""
    return {"custom": {"scheduler_config_override": render_scheduler_conf_yaml(fleet)}}
