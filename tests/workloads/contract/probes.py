"""Read one dimension of a contract as plain data, so a reader's table of upstream cases compares one fact per row.

Also the builders of the kinds ``tests/rules/builders.py`` has none for (LeaderWorkerSet, RayCluster, RayJob)
and of an operator profile.
"""

from __future__ import annotations

from typing import Any, Callable

from gpufleet.fleetctx.operators import OperatorProfile
from gpufleet.workloads.contract.registry import Run, read
from gpufleet.workloads.contract.types import Contract
from tests.rules.builders import NAMESPACE, manifest, meta, pod_template, with_fields

PROBES: dict[str, Callable[[Contract], Any]] = {
    "counts": lambda c: {p.name: p.count for p in c.pod_sets},
    "roles": lambda c: {p.name: p.role for p in c.pod_sets},
    "gpus": lambda c: {p.name: int(p.gpus_per_pod) for p in c.pod_sets},
    "after": lambda c: {p.name: [(a.of, a.condition) for a in p.created_after] for p in c.pod_sets if p.created_after},
    "group_names": lambda c: [g.name for g in c.groups],
    "groups": lambda c: [(g.backend, g.minimum, g.scope) for g in c.groups],
    "minimum_from": lambda c: [str(g.minimum_from) for g in c.groups],
    "queue": lambda c: [g.queue for g in c.groups],
    "admission": lambda c: (c.admission.unit, c.admission.by, c.admission.minimum),
    "scope": lambda c: {f.pod_set: f.scope for f in c.rank_failures},
    "steps": lambda c: {f.pod_set: [(s.layer, s.scope, s.bound) for s in f.steps] for f in c.rank_failures},
    "survivors_stop": lambda c: c.terminal.survivors_stop,
    "success": lambda c: (c.success.criterion, c.success.targets),
    "schedulers": lambda c: dict(c.placement.schedulers),
    "exclusive": lambda c: c.placement.exclusive_topology,
    "notes": lambda c: c.notes,
}


def profile(**settings: dict[str, Any]) -> OperatorProfile:
    """An operator profile from the model's spelling: ``profile(mpiOperator={"gangScheduler": "volcano"})``."""
    return OperatorProfile.from_dict(settings)


def contract_of(obj: dict[str, Any], operators: dict[str, Any] | None = None, objects: tuple = ()) -> Contract:
    return read(obj, Run(objects=(obj, *objects), operators=profile(**(operators or {}))))


def lws(
    size: int | None = 4,
    replicas: int | None = 2,
    leader: bool = True,
    startup: str | None = None,
    restart: str | None = None,
    annotations: dict | None = None,
    labels: dict | None = None,
    gpus: int | None = 8,
) -> dict[str, Any]:
    lwt = with_fields(
        {"workerTemplate": pod_template(restart_policy=None, gpus=gpus)},
        ("size", size),
        ("restartPolicy", restart),
        ("leaderTemplate", pod_template(restart_policy=None) if leader else None),
    )
    spec = with_fields({"leaderWorkerTemplate": lwt}, ("replicas", replicas), ("startupPolicy", startup))
    return manifest("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", meta("lws", NAMESPACE, labels, annotations), spec)


def worker_group(name: str = "gpu", replicas: int | None = 2, **fields: Any) -> dict[str, Any]:
    """A RayCluster worker group: ``minReplicas``, ``maxReplicas``, ``numOfHosts``, ``suspend`` as keyword fields."""
    out = with_fields(
        {"groupName": name, "template": pod_template(restart_policy=None, gpus=1)}, ("replicas", replicas)
    )
    out.update(fields)
    return out


def ray_cluster_spec(*groups: dict[str, Any], autoscaling: bool | None = None) -> dict[str, Any]:
    return with_fields(
        {"headGroupSpec": {"template": pod_template(restart_policy=None)}, "workerGroupSpecs": list(groups)},
        ("enableInTreeAutoscaling", autoscaling),
    )


def ray_cluster(*groups: dict[str, Any], autoscaling: bool | None = None, labels: dict | None = None) -> dict[str, Any]:
    spec = ray_cluster_spec(*(groups or (worker_group(),)), autoscaling=autoscaling)
    return manifest("ray.io/v1", "RayCluster", meta("rc", NAMESPACE, labels), spec)


def ray_job(*groups: dict[str, Any], labels: dict | None = None, **fields: Any) -> dict[str, Any]:
    spec = {
        "entrypoint": "python train.py",
        "rayClusterSpec": ray_cluster_spec(*(groups or (worker_group(),))),
        **fields,
    }
    return manifest("ray.io/v1", "RayJob", meta("rj", NAMESPACE, labels), spec)
