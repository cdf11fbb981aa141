"""Kueue's resource-group limits on the queues gpufleet renders.

The renderer writes one resource group per ClusterQueue and Cohort: its covered
resources are :func:`gpufleet.model.scaling.covered_resources` (every Kueue pool's
resources and quota overrides) and its flavors are the Kueue pools the owner has
quota on, each listing every covered resource. Kueue allows 1-64 covered resources
and 1-64 flavors per group, and 512 flavor×resource pairs (its 16-group and
256-per-queue limits cannot be reached with one group of at most 64). Registered in ``CHECKS``.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.checks.shapes import owners
from gpufleet.model.fleet import Fleet
from gpufleet.model.scaling import covered_resources, pool_resources
from gpufleet.yamlin.errors import Issue

MAX_RESOURCES = 64
MAX_FLAVORS = 64
MAX_PAIRS = 512


def _covered(fleet: Fleet) -> Iterator[Issue]:
    seen: set[str] = set()
    for i, pool in enumerate(fleet.pools):
        if pool.system != "kueue":
            continue
        before = len(seen)
        seen.update(pool_resources(pool))
        if before <= MAX_RESOURCES < len(seen):
            yield Issue(
                FieldPath.of("pools", i, "allocatable"),
                f"with this pool the Kueue pools have {len(seen)} distinct resources; a Kueue resource group covers at most {MAX_RESOURCES}",
                "list only the resources workloads request (GPU, cpu, memory, RDMA) in allocatable",
            )


def _per_queue(fleet: Fleet) -> Iterator[Issue]:
    kueue_pools = {p.name for p in fleet.pools_of("kueue")}
    covered = len(covered_resources(fleet, "kueue"))
    for owner in owners(fleet):
        flavors = [p for p in owner.quota if p in kueue_pools]
        kind = "ClusterQueue" if owner.kind == "teams" else "Cohort"
        if len(flavors) > MAX_FLAVORS:
            yield Issue(
                owner.quota_path(),
                f"quota on {len(flavors)} Kueue pools: a {kind} resource group holds at most {MAX_FLAVORS} flavors",
                "merge pools of the same node shape, or split the team",
            )
        elif len(flavors) * covered > MAX_PAIRS:
            yield Issue(
                owner.quota_path(),
                f"{len(flavors)} flavors × {covered} covered resources = {len(flavors) * covered} pairs; Kueue allows {MAX_PAIRS} per resource group",
                "quota on fewer Kueue pools, or fewer distinct resources in the Kueue pools' allocatable",
            )


def check(fleet: Fleet) -> Iterable[Issue]:
    yield from _covered(fleet)
    yield from _per_queue(fleet)
