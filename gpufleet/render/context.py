"""The fleet context: the JSON digest of a model that the rules and the webhook read.

Builds the shape declared once in :mod:`gpufleet.fleetctx.contextschema` (written through
its :func:`~gpufleet.fleetctx.contextschema.write`; read back by ``FleetContext.from_dict``). Called by :func:`gpufleet.render.render_all`, the linter's
``--fleet`` and the Pulumi stack (which mounts it into the admission controller).
"""

from __future__ import annotations

from typing import Any

from gpufleet.fleetctx import contextschema
from gpufleet.kubetypes.vocab import GANG_LABEL, QUEUE_LABEL
from gpufleet.model import scaling
from gpufleet.model.fleet import Fleet
from gpufleet.model.operators import PINNED
from gpufleet.model.ownership import volcano_namespaces
from gpufleet.model.pools import Pool
from gpufleet.model.teams import Team
from gpufleet.render import resources, tree
from gpufleet.render.kueue_config import managed_namespaces
from gpufleet.render.quota_ceiling import team_ceilings


def _team(fleet: Fleet, team: Team, ceilings: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    kueue = tree.system_quota(fleet, team, "kueue")
    volcano = tree.system_quota(fleet, team, "volcano")
    return {
        "name": team.name,
        "namespaces": list(team.namespaces),
        "localQueue": team.local_queue_name if kueue else None,
        "volcanoQueue": team.name if volcano else None,
        "volcanoNamespaces": volcano_namespaces(fleet, team),
        "pools": [p.name for p in fleet.pools if p.name in team.quota],
        "quota": ceilings.get(team.name, []),
    }


def _pool(pool: Pool) -> dict[str, Any]:
    out = {
        "name": pool.name,
        "system": pool.system,
        "nodeCount": pool.node_count,
        "gpuResource": pool.gpu_resource,
        "allocatable": {
            res: resources.fmt(res, pool.allocatable[res]) for res in scaling.resource_order(pool.allocatable)
        },
        "nodeLabels": dict(sorted(pool.node_labels.items())),
    }
    if pool.topology_levels:
        out["topologyLevels"] = list(pool.topology_levels)
    if pool.placement != "per-pod":
        out["placement"] = pool.placement
    if pool.dedicated_to:
        out["dedicatedTo"] = pool.dedicated_to
    if (
        pool.cold_start_budget is not None
    ):  # GANG502's waitForPodsReady floor; a coscheduling pool's PodGroup timeout (GANG804)
        out["coldStartBudgetSeconds"] = pool.cold_start_budget
    return out


def render_context(fleet: Fleet) -> dict[str, Any]:
    ceilings = team_ceilings(fleet)
    out = {
        "fleet": fleet.name,
        "coldStartFloorSeconds": fleet.admission.cold_start_floor,
        "waitForPodsReadyTimeoutSeconds": fleet.admission.wait_for_pods_ready.timeout,
        "kueueNamespace": fleet.engines.kueue.namespace,
        "volcanoNamespace": fleet.engines.volcano.namespace,
        "queueLabel": QUEUE_LABEL,
        **({"gangLabel": GANG_LABEL} if fleet.observability.enabled else {}),
        "kubernetesVersion": f"1.{fleet.kubernetes.minor}",
        "workloadGates": sorted(fleet.kubernetes.gates_on),
        "teams": [_team(fleet, t, ceilings) for t in fleet.teams],
        "pools": [_pool(p) for p in fleet.pools],
        "priorityClasses": [
            {"name": pc.name, "value": pc.value, "preemptionPolicy": pc.preemption_policy}
            for pc in fleet.priority_classes
        ],
    }
    if fleet.pools_of("coscheduling"):
        out["coschedulingScheduler"] = fleet.engines.coscheduling.scheduler_name
    out["manageJobsWithoutQueueName"] = fleet.admission.manage_jobs_without_queue_name
    out["kueueManagedNamespaces"] = managed_namespaces(fleet)
    out["kueueFrameworks"] = list(fleet.admission.frameworks)
    out["partitionExemptNamespaces"] = fleet.partition_exempt
    out["workloadOperators"] = _operators(fleet)
    return contextschema.write(out)


def _operators(fleet: Fleet) -> dict[str, Any]:
    """The declared operators, each with its tag (the pinned one when the model names none)."""
    out: dict[str, Any] = {}
    for key, op in fleet.workload_operators.declared().items():
        entry: dict[str, Any] = {"installed": op.installed, "version": op.version or PINNED[key]}
        if op.gang_scheduler:
            entry["gangScheduler"] = op.gang_scheduler
        entry["featureGates"] = list(op.feature_gates)
        out[key] = entry
    return out
