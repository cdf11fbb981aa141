"""Kueue ``kueue.x-k8s.io/v1beta2`` objects from the fleet model (pure: model in, dicts out).

ResourceFlavor and Topology per Kueue pool, Cohort per cohort with Kueue quota in its
subtree, ClusterQueue per team with Kueue quota (LocalQueue in each of its
namespaces), WorkloadPriorityClass per priority class. Every field the CRD or
Kueue's webhook would default is written explicitly, so ``pulumi preview`` never
shows a permanent diff. Called by :func:`gpufleet.render.render_all`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from gpufleet.kubetypes import quantity
from gpufleet.kubetypes.vocab import NAMESPACE_NAME_LABEL
from gpufleet.model import scaling
from gpufleet.model.fleet import Fleet
from gpufleet.model.ownership import kueue_namespaces
from gpufleet.model.pools import Pool
from gpufleet.model.quota import PoolQuota
from gpufleet.model.teams import Team
from gpufleet.render import resources, tree
from gpufleet.render.meta import KUEUE_API, manifest, metadata

DRAINING = ("draining", "retired")


def kueue_pools(fleet: Fleet) -> list[Pool]:
    return fleet.pools_of("kueue")


def covered_resources(fleet: Fleet) -> list[str]:
    """Union of every Kueue pool's resources (and explicit overrides), in the fixed order."""
    return scaling.covered_resources(fleet, "kueue")


def resource_groups(
    fleet: Fleet, quotas: dict[str, PoolQuota], covered: list[str], limits: bool
) -> list[dict[str, Any]]:
    """The single resource group: flavors in fleet pool order, every covered resource in each."""
    flavors = []
    for pool in kueue_pools(fleet):
        pq = quotas.get(pool.name)
        if pq is None:
            continue
        amounts = scaling.scaled_quota(pool, pq)
        flavors.append({"name": pool.name, "resources": [_resource(res, amounts.get(res), limits) for res in covered]})
    return [{"coveredResources": list(covered), "flavors": flavors}] if flavors else []


def _resource(res: str, amounts: scaling.Amounts | None, limits: bool) -> dict[str, str]:
    if amounts is None:
        return {"name": res, "nominalQuota": "0"}
    entry = {"name": res, "nominalQuota": resources.fmt(res, amounts.nominal)}
    if limits and amounts.borrowing_limit is not None:
        entry["borrowingLimit"] = resources.fmt(res, amounts.borrowing_limit)
    if limits and amounts.lending_limit is not None:
        entry["lendingLimit"] = resources.fmt(res, amounts.lending_limit)
    return entry


def _weight(value: Decimal) -> dict[str, str]:
    return {"weight": quantity.fmt(value)}


def render_resource_flavors(fleet: Fleet) -> list[dict[str, Any]]:
    out = []
    for pool in kueue_pools(fleet):
        spec: dict[str, Any] = {}
        if pool.node_labels:
            spec["nodeLabels"] = dict(sorted(pool.node_labels.items()))
        if pool.taints:
            spec["nodeTaints"] = [t.model_dump(exclude_none=True) for t in pool.taints]
        if pool.tolerations:
            spec["tolerations"] = [t.model_dump(by_alias=True, exclude_none=True) for t in pool.tolerations]
        if pool.topology_levels:
            spec["topologyName"] = pool.name
        out.append(manifest(KUEUE_API, "ResourceFlavor", metadata(fleet, pool.name), spec=spec))
    return out


def render_topologies(fleet: Fleet) -> list[dict[str, Any]]:
    return [
        manifest(
            KUEUE_API,
            "Topology",
            metadata(fleet, pool.name),
            spec={"levels": [{"nodeLabel": level} for level in pool.topology_levels]},
        )
        for pool in kueue_pools(fleet)
        if pool.topology_levels
    ]


def render_cohorts(fleet: Fleet) -> list[dict[str, Any]]:
    covered = covered_resources(fleet)
    out = []
    for cohort in tree.cohorts_for(fleet, "kueue"):
        spec: dict[str, Any] = {}
        if cohort.parent:
            spec["parentName"] = cohort.parent
        groups = resource_groups(
            fleet, tree.system_quota(fleet, cohort, "kueue"), covered, limits=cohort.parent is not None
        )
        if groups:
            spec["resourceGroups"] = groups
        spec["fairSharing"] = _weight(cohort.fair_share_weight)
        out.append(manifest(KUEUE_API, "Cohort", metadata(fleet, cohort.name), spec=spec))
    return out


def stop_policy(team: Team) -> str:
    return "HoldAndDrain" if team.lifecycle in DRAINING else team.stop_policy


def namespace_selector(namespaces: list[str]) -> dict[str, Any]:
    """A selector matching exactly these namespaces (an empty list matches none)."""
    if not namespaces:
        return {"matchExpressions": [{"key": NAMESPACE_NAME_LABEL, "operator": "DoesNotExist"}]}
    return {"matchExpressions": [{"key": NAMESPACE_NAME_LABEL, "operator": "In", "values": sorted(set(namespaces))}]}


def _preemption(team: Team) -> dict[str, Any]:
    p = team.preemption
    borrow: dict[str, Any] = {"policy": p.borrow_within_cohort.policy}
    if p.borrow_within_cohort.max_priority_threshold is not None:
        borrow["maxPriorityThreshold"] = p.borrow_within_cohort.max_priority_threshold
    return {
        "reclaimWithinCohort": p.reclaim_within_cohort,
        "withinClusterQueue": p.within_cluster_queue,
        "borrowWithinCohort": borrow,
    }


def kueue_teams(fleet: Fleet) -> list[Team]:
    return [t for t in fleet.teams if tree.system_quota(fleet, t, "kueue")]


def render_cluster_queue(fleet: Fleet, team: Team, covered: list[str]) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if team.cohort:
        spec["cohortName"] = team.cohort
    spec["namespaceSelector"] = namespace_selector(kueue_namespaces(fleet, team))
    spec["queueingStrategy"] = team.queueing_strategy
    spec["resourceGroups"] = resource_groups(
        fleet, tree.system_quota(fleet, team, "kueue"), covered, limits=team.cohort is not None
    )
    spec["preemption"] = _preemption(team)
    spec["flavorFungibility"] = {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"}
    spec["fairSharing"] = _weight(team.fair_share_weight)
    spec["stopPolicy"] = stop_policy(team)
    return manifest(KUEUE_API, "ClusterQueue", metadata(fleet, team.name, team=team.name), spec=spec)


def render_cluster_queues(fleet: Fleet) -> list[dict[str, Any]]:
    covered = covered_resources(fleet)
    return [render_cluster_queue(fleet, team, covered) for team in kueue_teams(fleet)]


def render_local_queues(fleet: Fleet) -> list[dict[str, Any]]:
    return [
        manifest(
            KUEUE_API,
            "LocalQueue",
            metadata(fleet, team.local_queue_name, namespace=ns, team=team.name),
            spec={"clusterQueue": team.name, "stopPolicy": stop_policy(team)},
        )
        for team in kueue_teams(fleet)
        for ns in kueue_namespaces(fleet, team)
    ]


def render_workload_priority_classes(fleet: Fleet) -> list[dict[str, Any]]:
    out = []
    for pc in fleet.priority_classes:
        body: dict[str, Any] = {"value": pc.value}
        if pc.description:
            body["description"] = pc.description
        out.append(manifest(KUEUE_API, "WorkloadPriorityClass", metadata(fleet, pc.name), **body))
    return out
