"""Volcano ``scheduling.volcano.sh/v1beta1`` Queues and the matching ``volcano-scheduler.conf``.

One leaf Queue per team with quota on Volcano pools; with the capacity plugin and
``hierarchy`` on, one parent Queue per cohort whose subtree has Volcano quota (parent:
its parent cohort's queue, or ``root``), otherwise every leaf sits under ``root``.
Leaf: deserved = nominal, capability = nominal + borrowing limit (no cap when unset;
= nominal for a team without a cohort, which may not borrow), guarantee = nominal -
lending limit where a lending limit is set. Parent: deserved and guarantee = the sum
of its children plus its own quota (Volcano's webhook requires the parent to cover
its children); capability = deserved + the cohort's own borrowing limit, for the
resources whose every pool sets one (what the subtree may take from its parent). ``weight``, ``reclaimable``, ``parent`` and ``dequeueStrategy`` are
written explicitly so the webhook and queue controller change nothing. The scheduler
conf loads ``capacity`` or ``proportion`` (never both) to read exactly these fields.
Every queue carries ``affinity.nodeGroupAffinity`` (required) listing the Volcano
pools' ``volcano.sh/nodegroup-name`` values, and the conf loads the ``nodegroup``
plugin (strict by default, volcano v1.15.1 ``pkg/scheduler/plugins/nodegroup``:
nodes without the label are unfit), so Volcano gangs land only on Volcano pools.
Called by :func:`gpufleet.render.render_all` and the Pulumi Volcano component.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from gpufleet import yamlio
from gpufleet.model.checks.ownership import NODEGROUP_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.model.teams import Cohort, Team
from gpufleet.render import resources, tree
from gpufleet.render.meta import VOLCANO_API, manifest, metadata

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
    for pool_name, pq in tree.system_quota(fleet, owner, "volcano").items():
        for res, a in resources.scaled_quota(fleet.pool(pool_name), pq).items():
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
    for pool_name, pq in tree.system_quota(fleet, cohort, "volcano").items():
        for res, a in resources.scaled_quota(fleet.pool(pool_name), pq).items():
            if a.borrowing_limit is None:
                unlimited.add(res)
            else:
                _add(limits, res, a.borrowing_limit)
    return {res: amount for res, amount in limits.items() if res not in unlimited}


def _resource_list(totals: Totals) -> dict[str, str]:
    return {res: resources.fmt(res, totals[res]) for res in resources.resource_order(totals)}


def _queue(fleet: Fleet, name: str, parent: str, w: Decimal, reclaimable: bool,
           deserved: Totals, capability: Totals | None, guarantee: Totals, team: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"weight": weight(w), "reclaimable": reclaimable, "parent": parent,
                            "dequeueStrategy": "traverse"}
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


def node_groups(fleet: Fleet) -> list[str]:
    """The ``volcano.sh/nodegroup-name`` values of the Volcano pools: every queue is pinned to them."""
    return sorted({p.node_labels[NODEGROUP_LABEL] for p in fleet.pools_of("volcano") if NODEGROUP_LABEL in p.node_labels})


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

    leaves = []
    for team in volcano_teams(fleet):
        deserved, capability, guarantee = _own(fleet, team, may_borrow=team.cohort is not None)
        parent = team.cohort if team.cohort in sums else ROOT
        roll_up(parent, deserved, guarantee)
        leaves.append(_queue(fleet, team.name, parent, team.fair_share_weight, team.volcano_reclaimable,
                             deserved, capability, guarantee, team.name))
    for cohort in cohorts:
        deserved, _, guarantee = _own(fleet, cohort, may_borrow=True)
        roll_up(cohort.name, deserved, guarantee)
    parents = []
    for c in cohorts:
        borrowing = _own_borrowing(fleet, c)
        capability = {res: sums[c.name][0].get(res, Decimal(0)) + amount for res, amount in borrowing.items()}
        parents.append(_queue(fleet, c.name, parent_of[c.name], c.fair_share_weight, True,
                              deserved=sums[c.name][0], capability=capability or None, guarantee=sums[c.name][1], team=None))
    return parents + leaves


def render_scheduler_conf(fleet: Fleet) -> dict[str, Any]:
    settings = fleet.volcano
    share: dict[str, Any] = {"name": settings.plugin}
    if hierarchical(fleet):
        share["enableHierarchy"] = True
    return {
        "actions": ", ".join(settings.actions),
        "tiers": [
            {"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
            {"plugins": [
                {"name": "overcommit", "arguments": {"overcommit-factor": float(settings.overcommit_factor)}},
                {"name": "drf"}, {"name": "predicates"}, share, {"name": "nodegroup"}, {"name": "nodeorder"}, {"name": "binpack"},
            ]},
        ],
    }


def render_scheduler_conf_yaml(fleet: Fleet) -> str:
    return yamlio.dump(render_scheduler_conf(fleet))


def render_volcano_values(fleet: Fleet) -> dict[str, Any]:
    """Helm values for the Volcano chart: only the scheduler conf override."""
    return {"custom": {"scheduler_config_override": render_scheduler_conf_yaml(fleet)}}
