"""The jobs ``gpufleet advise`` was given, reduced to what the decision needs: pool, GPUs, elasticity.

Called by :func:`gpufleet.advise.advise`. A workload belongs to the team of its
namespace (the fleet model's ``teams[].namespaces``); among that team's pools it is
placed on the one its pod templates select by ``nodeSelector`` (a pool's
``nodeLabels``), else a Volcano Job on the team's Volcano pool, else the team's first
pool. Its GPUs are Σ over pod templates of replicas × the pod's request of the pool's
``gpuResource`` (a request falls back to its limit). Objects that are not workloads, or
in no team's namespace, are counted as skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Iterable, Mapping

from gpufleet import workloads
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.workloads import as_map
from gpufleet.workloads.resources import pod_requests


@dataclass(frozen=True)
class Job:
    name: str
    namespace: str
    pool: str
    gpus: Decimal
    elastic: bool
    volcano: bool
    """A Volcano Job (batch.volcano.sh): it needs Volcano whatever the pool's system."""


def _pool_for(fleet: Fleet, view: workloads.WorkloadView, pools: list[Pool]) -> Pool:
    for template in view.templates:
        selector = as_map(template.spec.get("nodeSelector"))
        for pool in pools:
            if pool.node_labels and all(selector.get(k) == v for k, v in pool.node_labels.items()):
                return pool
    if view.group == "batch.volcano.sh":
        volcano = [p for p in pools if p.system == "volcano"]
        if volcano:
            return volcano[0]
    return pools[0]


def _elastic(view: workloads.WorkloadView) -> bool:
    return view.elastic or (view.group == "kubeflow.org" and "elasticPolicy" in as_map(view.obj.get("spec")))


def collect(fleet: Fleet, objects: Iterable[Mapping[str, Any]]) -> tuple[list[Job], int]:
    """The jobs among ``objects`` placed on the fleet's pools, and how many objects were skipped."""
    jobs, skipped = [], 0
    for obj in objects:
        view = workloads.view(obj)
        team = next((t for t in fleet.teams if view is not None and view.namespace in t.namespaces), None)
        pools = [p for p in fleet.pools if team is not None and p.name in team.quota]
        if view is None or view.kind in ("PodGroup",) or not pools:
            skipped += 1
            continue
        pool = _pool_for(fleet, view, pools)
        gpus = sum(
            (pod_requests(t.spec).get(pool.gpu_resource, Decimal(0)) * t.replicas for t in view.templates), Decimal(0)
        )
        jobs.append(
            Job(
                view.name or "", view.namespace or "", pool.name, gpus, _elastic(view), view.group == "batch.volcano.sh"
            )
        )
    return jobs, skipped
