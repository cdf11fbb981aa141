"""The cluster's Kubernetes version and gates, and the pools that rely on Kubernetes' own gang scheduling.

``kubernetes`` and pools with ``system: native`` (kube-scheduler's GangScheduling plugin,
alone) or ``placement: native`` (a Kueue pool whose admitted gangs that plugin places).
The facts are :mod:`gpufleet.kubetypes.workload_api`'s (kubernetes v1.37.2). This check rejects:

- a gate that is not a workload-scheduling gate gpufleet knows, or that the version does not
  have yet (``WorkloadWithJob`` at 1.35), or that is on while a gate it depends on is off
  (``defaultKubernetesFeatureGateDependencies``);
- a native pool on a version older than 1.36 (1.35's Job controller creates no PodGroups), or
  with ``GenericWorkload`` or ``WorkloadWithJob`` off: its gangs would bind pod by pod;
- ``placement`` on a pool that is not Kueue's; ``topologyLevels`` on a ``system: native`` pool
  without ``TopologyAwareWorkloadScheduling`` (and more than one level: a PodGroup takes one key);
- on a ``system: native`` pool, what a mechanism without quota cannot do (one team, no borrowing,
  no quota elsewhere, node labels to pin the pods), as for coscheduling.

Registered in ``CHECKS``.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from gpufleet.kubetypes import workload_api as wa
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.checks.coscheduling import without_quota
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.yamlin.errors import Issue

_GATES = FieldPath.of("kubernetes", "featureGates")


def _gates(fleet: Fleet) -> Iterator[Issue]:
    k8s = fleet.kubernetes
    if wa.minor_of(k8s.version) is None:
        return
    on = k8s.gates_on
    for gate, value in k8s.feature_gates.items():
        path = _GATES.child(gate)
        if gate not in wa.GATES:
            yield Issue(
                path,
                f"{gate!r} is not a workload-scheduling gate gpufleet models",
                f"use one of {', '.join(sorted(wa.GATES))}, or remove it",
            )
            continue
        first = wa.GATES[gate][0][0]
        if k8s.minor < first:
            yield Issue(
                path,
                f"Kubernetes {k8s.version} has no {gate} gate (it appears in 1.{first}); the components refuse "
                "an unknown gate",
                f"remove {gate}, or set kubernetes.version to 1.{first} or later",
            )
            continue
        missing = [dep for dep in wa.NEEDS.get(gate, ()) if dep not in on]
        if value and missing:
            yield Issue(
                path,
                f"{gate} depends on {', '.join(missing)}, which is off (kube_features.go at v1.37.2)",
                f"also set {', '.join(f'{d}: true' for d in missing)}",
            )


def _needs(fleet: Fleet) -> str:
    minor = max(fleet.kubernetes.minor, wa.JOB_GANG_MIN_MINOR)
    config = wa.runtime_config(minor)
    return (
        f"set kubernetes.version to 1.{minor} or later with featureGates {{{wa.GENERIC_WORKLOAD}: true, "
        f"{wa.WORKLOAD_WITH_JOB}: true}} (and --runtime-config={config} on the API server), or hold the pool "
        "with kueue (placement: per-pod), volcano or coscheduling"
    )


def _native_pool(fleet: Fleet, pool: Pool, path: FieldPath) -> Iterator[Issue]:
    k8s = fleet.kubernetes
    if k8s.minor < wa.JOB_GANG_MIN_MINOR:
        yield Issue(
            path,
            f"pool {pool.name!r} needs Kubernetes' own gang scheduling, which Kubernetes {k8s.version} "
            f"does not have for Jobs (the Workload API is 1.35+, the Job controller's PodGroups 1.36+)",
            _needs(fleet),
        )
        return
    off = [g for g in (wa.GENERIC_WORKLOAD, wa.WORKLOAD_WITH_JOB) if g not in k8s.gates_on]
    if off:
        yield Issue(
            path,
            f"pool {pool.name!r} needs Kubernetes' own gang scheduling, but {' and '.join(off)} "
            f"{'is' if len(off) == 1 else 'are'} off on Kubernetes {k8s.version}: its gangs would bind pod by pod",
            _needs(fleet),
        )


def _alone(fleet: Fleet, pool: Pool, base: FieldPath) -> Iterator[Issue]:
    yield from without_quota(fleet, pool, base, "kube-scheduler's gang scheduling", "kube-scheduler's gang scheduling")
    if pool.topology_levels and wa.TOPOLOGY_AWARE not in fleet.kubernetes.gates_on:
        yield Issue(
            base.child("topologyLevels"),
            f"topologyLevels on a native pool need {wa.TOPOLOGY_AWARE} (alpha, off by default up to 1.37)",
            f"set kubernetes.featureGates.{wa.TOPOLOGY_AWARE}: true, or remove topologyLevels",
        )
    elif len(pool.topology_levels) > 1:
        yield Issue(
            base.child("topologyLevels"),
            "a PodGroup takes one topology key (schedulingConstraints.topology has at most one item at v1.37.2)",
            "keep the one level gangs must share (e.g. the rack label)",
        )


def check(fleet: Fleet) -> Iterable[Issue]:
    yield from _gates(fleet)
    for i, pool in enumerate(fleet.pools):
        base = FieldPath.of("pools", i)
        if pool.placement != "per-pod" and pool.system != "kueue":
            yield Issue(
                base.child("placement"),
                f"placement is how Kueue's admitted gangs are placed; pool {pool.name!r} is held by {pool.system}",
                "remove placement, or set system: kueue",
            )
        if pool.system == "native":
            yield from _native_pool(fleet, pool, base.child("system"))
            yield from _alone(fleet, pool, base)
        elif pool.system == "kueue" and pool.placement == "native":
            yield from _native_pool(fleet, pool, base.child("placement"))
