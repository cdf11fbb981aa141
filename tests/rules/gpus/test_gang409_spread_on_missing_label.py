"""GANG409: a hard topology spread on a label no node of the gang's pools carries places no pod."""

from __future__ import annotations

import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.rules.api import CheckContext
from tests.rules import builders as b
from tests.rules.helpers import FLEET, WITH_FLEET, paths

CODE = "GANG409"
KEY = "spec.tasks[0].template.spec.topologySpreadConstraints[0].topologyKey"


def spread(key: str, when: str = "DoNotSchedule") -> dict:
    """A 2-rank Volcano Job in research (pool h100) spreading its workers over ``key``."""
    worker = b.task("worker", replicas=2, gpus=8)
    worker["template"]["spec"]["topologySpreadConstraints"] = [
        {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": when, "labelSelector": {"matchLabels": {"a": "b"}}}
    ]
    return b.volcano_job("spread", tasks=[worker], min_available=2, namespace="research")


@pytest.mark.parametrize(
    "key, when, expected",
    [
        ("topology.kubernetes.io/zone", "DoNotSchedule", [KEY]),  # no h100 node carries it
        ("topology.kubernetes.io/zone", "ScheduleAnyway", []),  # a soft spread places the pods anyway
        ("kubernetes.io/hostname", "DoNotSchedule", []),  # the kubelet labels every node
        ("gpufleet.dev/pool", "DoNotSchedule", []),  # a nodeLabel of the pool
    ],
)
def test_a_hard_spread_must_name_a_label_the_pools_nodes_carry(key, when, expected):
    assert paths(CODE, spread(key, when), WITH_FLEET) == expected


def test_a_topology_level_of_the_pool_counts_as_carried():
    data = FLEET
    pools = tuple(
        p if p.name != "h100" else type(p)(**{**p.__dict__, "topology_levels": ("topology.kubernetes.io/zone",)})
        for p in data.pools
    )
    ctx = CheckContext(fleet=FleetContext(data.fleet, data.teams, pools, data.priority_classes))
    assert paths(CODE, spread("topology.kubernetes.io/zone"), ctx) == []


def test_without_a_fleet_nothing_is_known_and_nothing_is_said():
    assert paths(CODE, spread("topology.kubernetes.io/zone")) == []
