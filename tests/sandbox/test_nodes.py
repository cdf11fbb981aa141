"""Fake nodes are the model's pools: one per nodeCount, with its allocatable, labels and taints."""

from __future__ import annotations

import pytest

from gpufleet.kubetypes.vocab import KWOK_NODE_ANNOTATION
from gpufleet.sandbox.nodes import nodes
from tests.render.builders import fleet, pool, quota, team


@pytest.fixture
def two_pools():
    return fleet(
        pools=[
            pool("h100", nodes=3, taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]),
            pool("a100", system="volcano", nodes=2, gpus=4),
        ],
        teams=[team("research", {"h100": quota(24), "a100": quota(8)})],
    )


def test_each_pool_gives_one_node_per_node_count_named_after_the_pool(two_pools):
    assert [n["metadata"]["name"] for n in nodes(two_pools)] == ["h100-0", "h100-1", "h100-2", "a100-0", "a100-1"]


def test_a_node_offers_the_pools_allocatable_gpus_and_is_handed_to_kwok(two_pools):
    node = nodes(two_pools)[3]
    assert node["status"]["allocatable"]["nvidia.com/gpu"] == "4"
    assert node["status"]["capacity"]["memory"] == "1920Gi"
    assert node["metadata"]["annotations"] == {KWOK_NODE_ANNOTATION: "fake"}


def test_a_node_carries_the_pools_labels_and_taints(two_pools):
    h100, a100 = nodes(two_pools)[0], nodes(two_pools)[3]
    assert h100["metadata"]["labels"]["gpufleet.dev/pool"] == "h100"
    assert h100["spec"]["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    assert a100["metadata"]["labels"]["volcano.sh/nodegroup-name"] == "a100"
    assert "taints" not in a100["spec"]


def test_a_pool_with_topology_levels_gets_blocks_of_eight_nodes_at_the_lowest_level():
    f = fleet(
        pools=[
            pool("h100", nodes=40, topologyLevels=["example.com/block", "example.com/rack", "kubernetes.io/hostname"])
        ],
        teams=[team("research", {"h100": quota(320)})],
    )
    labels = [n["metadata"]["labels"] for n in nodes(f)]
    assert {lb["example.com/rack"] for lb in labels[:8]} == {"h100-rack-0"}
    assert labels[8]["example.com/rack"] == "h100-rack-1"
    assert {lb["example.com/block"] for lb in labels[:32]} == {"h100-block-0"}
    assert labels[39]["kubernetes.io/hostname"] == "h100-39"
