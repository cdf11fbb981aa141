"""Topology levels: Kueue's Topology rules, Kueue pools only."""

from __future__ import annotations

import pytest

from tests.model.expect import Case, clean, params, reported

BLOCK, RACK, HOST = "topology.gpufleet.dev/block", "topology.gpufleet.dev/rack", "kubernetes.io/hostname"

CASES = [
    Case(
        "duplicate-level",
        lambda f: f.set("pools[0].topologyLevels", [BLOCK, RACK, BLOCK]),
        lambda f: f.set("pools[0].topologyLevels", [BLOCK, RACK]),
        "pools[0].topologyLevels[2]",
        "already level 0",
    ),
    Case(
        "hostname-not-last",
        lambda f: f.set("pools[0].topologyLevels", [BLOCK, HOST, RACK]),
        lambda f: f.set("pools[0].topologyLevels", [BLOCK, RACK, HOST]),
        "pools[0].topologyLevels[1]",
        "must be the last",
    ),
    Case(
        "seventeen-levels",
        lambda f: f.set("pools[0].topologyLevels", [f"example.com/l{i}" for i in range(17)]),
        lambda f: f.set("pools[0].topologyLevels", [f"example.com/l{i}" for i in range(16)]),
        "pools[0].topologyLevels",
        "at most 16",
    ),
    Case(
        "level-not-a-label-key",
        lambda f: f.set("pools[0].topologyLevels", ["Rack Level"]),
        lambda f: f.set("pools[0].topologyLevels", ["rack-level"]),
        "pools[0].topologyLevels[0]",
        "invalid level",
    ),
    Case(
        "levels-on-a-volcano-pool",
        lambda f: f.set("pools[1].topologyLevels", [RACK, HOST]),
        lambda f: f.set("pools[0].topologyLevels", [RACK, HOST]),
        "pools[1].topologyLevels",
        "held by Volcano",
    ),
    Case(
        "levels-without-node-labels",
        lambda f: f.set("pools[0].topologyLevels", [HOST]).drop("pools[0].nodeLabels").drop("pools[1].nodeLabels"),
        lambda f: f.set("pools[0].topologyLevels", [HOST]),
        "pools[0].nodeLabels",
        "needs at least one node label",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_bad_topology_levels_are_reported_at_their_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_topology_passes(case: Case) -> None:
    clean(case)
