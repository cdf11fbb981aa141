"""Topology levels of Kueue pools (topology-aware admission).

A Kueue pool with ``topologyLevels`` renders a Topology and sets the flavor's
``topologyName``. Kueue's Topology CRD allows 1-16 unique levels, each a valid label
key, with ``kubernetes.io/hostname`` only as the last one; a flavor with a topology
needs at least one node label. Volcano has no Topology object (it uses HyperNodes),
so the field is Kueue-only. Registered in ``CHECKS``.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.vocab import HOSTNAME_LABEL
from gpufleet.model.checks.k8s import QUALIFIED_NAME_FIX, qualified_name_problems
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.yamlin.errors import Issue

MAX_LEVELS = 16


def _levels(base: FieldPath, pool: Pool) -> Iterator[Issue]:
    levels = pool.topology_levels
    path = base.child("topologyLevels")
    if len(levels) > MAX_LEVELS:
        yield Issue(
            path,
            f"{len(levels)} levels: a Kueue Topology has at most {MAX_LEVELS}",
            "keep the levels that matter for placement",
        )
    seen: dict[str, int] = {}
    for j, level in enumerate(levels):
        at = path.index(j)
        for problem in qualified_name_problems(level):
            yield Issue(at, f"invalid level: {problem}", QUALIFIED_NAME_FIX)
        if level in seen:
            yield Issue(at, f"{level!r} is already level {seen[level]}", "list each node label once")
        seen.setdefault(level, j)
        if level == HOSTNAME_LABEL and j != len(levels) - 1:
            yield Issue(
                at, f"{HOSTNAME_LABEL} must be the last (narrowest) level", "move it to the end of topologyLevels"
            )
    if not pool.node_labels:
        yield Issue(
            base.child("nodeLabels"),
            "a pool with topologyLevels needs at least one node label (Kueue requires it for a flavor with a topology)",
            "add a label that selects the pool's nodes",
        )


def check(fleet: Fleet) -> Iterable[Issue]:
    for i, pool in enumerate(fleet.pools):
        if not pool.topology_levels:
            continue
        base = FieldPath.of("pools", i)
        if pool.system == "volcano":
            yield Issue(
                base.child("topologyLevels"),
                "topologyLevels is Kueue topology-aware admission; this pool is held by Volcano",
                "remove topologyLevels (Volcano uses HyperNodes), or set system: kueue",
            )
        else:
            yield from _levels(base, pool)
