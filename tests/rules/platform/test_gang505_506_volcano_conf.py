"""GANG505 and GANG506: Volcano scheduler confs that break gangs on eviction or mix queue plugins."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from tests.rules import kueue_configs as k

BASE = "data[volcano-scheduler.conf]"


def gang(**switches) -> dict:
    return {"name": "gang", **switches}


def paths(obj: dict, code: str) -> list[str]:
    return [str(f.path).removeprefix(BASE + ".") for f in engine.check_object(obj, select=[code])]


@pytest.mark.parametrize(
    "actions, plugin, expected",
    [
        ("enqueue, allocate, backfill", gang(enablePreemptable=False), []),
        ("enqueue, allocate, preempt", gang(), []),
        ("enqueue, allocate, preempt", gang(enablePreemptable=False), ["tiers[0].plugins[1].enablePreemptable"]),
        ("enqueue, allocate, preempt", gang(enablePreemptable="false"), ["tiers[0].plugins[1].enablePreemptable"]),
        ("enqueue, allocate, reclaim", gang(enablePreemptable=False), []),
        ("enqueue, allocate, reclaim", gang(enableReclaimable=False), ["tiers[0].plugins[1].enableReclaimable"]),
        ("allocate, gangpreempt, gangreclaim", gang(enablePreemptable=False, enableReclaimable=False), []),
        ("allocate, preempt", {"name": "drf"}, ["actions"]),
        ("allocate, gangpreempt", {"name": "drf"}, ["actions"]),
    ],
)
def test_gang505_needs_the_gang_filter_for_pod_level_eviction(actions, plugin, expected):
    conf = k.volcano_conf(actions, [{"name": "priority"}, plugin])
    assert paths(conf, "GANG505") == expected


@pytest.mark.parametrize(
    "tiers, expected",
    [
        ([[{"name": "proportion"}]], []),
        ([[{"name": "capacity"}]], []),
        ([[{"name": "capacity"}, {"name": "proportion"}]], ["tiers[0].plugins[1]"]),
        ([[{"name": "proportion"}], [{"name": "gang"}, {"name": "capacity"}]], ["tiers[1].plugins[1]"]),
    ],
)
def test_gang506_flags_proportion_together_with_capacity(tiers, expected):
    assert paths(k.volcano_conf("enqueue, allocate", *tiers), "GANG506") == expected


def test_a_conf_that_is_not_yaml_is_reported_once_by_gang505():
    conf = k.volcano_conf("allocate")
    conf["data"]["volcano-scheduler.conf"] = "tiers: [unclosed"
    assert paths(conf, "GANG505") == [BASE]
    assert paths(conf, "GANG506") == []


@pytest.mark.parametrize(
    "actions, tiers, expected",
    [
        ("allocate, preempt", [[{"name": "priority"}, gang()], [{"name": "drf"}]], []),
        ("allocate, preempt", [[{"name": "priority"}], [gang()]], ["tiers[1].plugins[0]"]),
        ("allocate, preempt", [[{"name": "priority", "enablePreemptable": False}], [gang()]], []),
        ("allocate, reclaim", [[{"name": "priority"}], [gang()]], []),  # priority does not vote on reclaim
        ("allocate, reclaim", [[{"name": "proportion"}], [gang()]], ["tiers[1].plugins[0]"]),
        ("allocate, gangpreempt", [[{"name": "priority"}], [gang()]], []),
    ],
)
def test_gang505_needs_gang_in_the_tier_that_decides_victims(actions, tiers, expected):
    assert paths(k.volcano_conf(actions, *tiers), "GANG505") == expected
