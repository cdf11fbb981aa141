"""Fake nodes from the model's pools, for KWOK to keep Ready.

One Node per ``pool.nodeCount``, named ``<pool>-<i>``, with the pool's allocatable
(capacity = allocatable, plus a pod count), its ``nodeLabels`` and ``taints``, the
standard ``kubernetes.io/hostname`` label and, for a pool with ``topologyLevels``, a
value per level (``<level>=<pool>-<block>``, blocks of 8 nodes at the lowest level and
one block per level above it) so that Kueue's topology-aware admission has a tree to
walk. The KWOK annotation ``kwok.x-k8s.io/node: fake`` hands the node to KWOK
(``--manage-nodes-with-annotation-selector``). Pure. Called by ``gpufleet.sandbox.up``.
"""

from __future__ import annotations

from typing import Any

from gpufleet.kubetypes.quantity import fmt
from gpufleet.kubetypes.vocab import HOSTNAME_LABEL, KWOK_NODE_ANNOTATION, SANDBOX_POOL_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool

PODS_PER_NODE = "110"
NODES_PER_BLOCK = 8


def _topology(pool: Pool, index: int) -> dict[str, str]:
    levels = [lvl for lvl in pool.topology_levels if lvl != HOSTNAME_LABEL]
    out = {}
    for depth, level in enumerate(reversed(levels)):  # lowest level first: the smallest blocks
        block = index // (NODES_PER_BLOCK * (4**depth))
        out[level] = f"{pool.name}-{level.rsplit('/', 1)[-1]}-{block}"
    return out


def _resources(pool: Pool) -> dict[str, str]:
    out = {name: fmt(value, binary=name in ("memory", "ephemeral-storage")) for name, value in pool.allocatable.items()}
    out.setdefault("pods", PODS_PER_NODE)
    return out


def node(pool: Pool, index: int) -> dict[str, Any]:
    name = f"{pool.name}-{index}"
    labels = {
        **pool.node_labels,
        **_topology(pool, index),
        HOSTNAME_LABEL: name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "type": "kwok",
        SANDBOX_POOL_LABEL: pool.name,
    }
    taints = [
        {k: v for k, v in {"key": t.key, "value": t.value, "effect": t.effect}.items() if v is not None}
        for t in pool.taints
    ]
    resources = _resources(pool)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels, "annotations": {KWOK_NODE_ANNOTATION: "fake"}},
        "spec": {"taints": taints} if taints else {},
        "status": {
            "capacity": resources,
            "allocatable": dict(resources),
            "nodeInfo": {"kubeletVersion": "fake", "architecture": "amd64", "operatingSystem": "linux"},
        },
    }


def nodes(fleet: Fleet, cap: int | None = None) -> list[dict[str, Any]]:
    """Every fake node of every pool (at most ``cap`` per pool), in model order."""
    return [node(pool, i) for pool in fleet.pools for i in range(min(pool.node_count, cap or pool.node_count))]
