"""Volcano queues (hierarchy, deserved/capability/guarantee) and the scheduler conf."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
import yaml

from gpufleet.render import volcano
from tests.conftest import shared_path
from tests.render.builders import by_name, cohort, fleet, pool, quota, team

A100 = pool("a100", system="volcano", nodes=16, gpus=8, cpu=128, memory="1000Gi")


def _fleet(teams, cohorts=None, **extra):
    return fleet(pools=[A100], teams=teams, cohorts=cohorts if cohorts is not None else [cohort("ml")], **extra)


def test_a_leaf_queue_deserves_its_nominal_and_is_capped_at_nominal_plus_borrowing():
    f = _fleet([team("a", {"a100": quota(16, 8)}), team("b", {"a100": quota(16)})])
    spec = by_name(volcano.render_volcano_queues(f), "a")["spec"]
    assert spec["deserved"] == {"cpu": "256", "memory": "2000Gi", "nvidia.com/gpu": "16"}
    assert spec["capability"] == {"cpu": "384", "memory": "3000Gi", "nvidia.com/gpu": "24"}
    assert "guarantee" not in spec


def test_a_leaf_without_a_borrowing_limit_has_no_capability():
    spec = by_name(volcano.render_volcano_queues(_fleet([team("a", {"a100": quota(16)})])), "a")["spec"]
    assert "capability" not in spec


def test_a_team_without_a_cohort_cannot_borrow_so_its_capability_is_its_nominal():
    f = _fleet([team("solo", {"a100": quota(16)}, cohort=None)], cohorts=[])
    spec = by_name(volcano.render_volcano_queues(f), "solo")["spec"]
    assert spec["capability"] == spec["deserved"]
    assert spec["parent"] == "root"


def test_a_lending_limit_guarantees_the_rest_of_the_nominal():
    spec = by_name(volcano.render_volcano_queues(_fleet([team("a", {"a100": quota(16, lending=4)})])), "a")["spec"]
    assert spec["guarantee"] == {"resource": {"cpu": "192", "memory": "1500Gi", "nvidia.com/gpu": "12"}}


def test_parents_deserve_the_sum_of_their_children_plus_their_own_quota():
    cohorts = [cohort("org", quota={"a100": quota(8)}), cohort("ml", parent="org")]
    teams = [team("a", {"a100": quota(16, lending=4)}), team("b", {"a100": quota(8, lending=8)})]
    queues = volcano.render_volcano_queues(_fleet(teams, cohorts))
    assert [plain(q["metadata"]["name"]) for q in queues] == ["org", "ml", "a", "b"]
    org, ml = by_name(queues, "org")["spec"], by_name(queues, "ml")["spec"]
    assert (org["parent"], plain(ml["parent"])) == ("root", "org")
    assert ml["deserved"]["nvidia.com/gpu"] == "24"
    assert org["deserved"]["nvidia.com/gpu"] == "32"
    assert ml["guarantee"]["resource"]["nvidia.com/gpu"] == org["guarantee"]["resource"]["nvidia.com/gpu"] == "12"
    assert plain(by_name(queues, "a")["spec"]["parent"]) == "ml"


@pytest.mark.parametrize("plugin, hierarchy", [("proportion", True), ("capacity", False)])
def test_without_capacity_hierarchy_every_leaf_sits_under_root_and_no_parent_queue_is_made(plugin, hierarchy):
    cohort_name = (
        "ml" if plugin == "capacity" else None
    )  # proportion ignores parents: validation keeps teams out of cohorts
    f = _fleet([team("a", {"a100": quota(8)}, cohort=cohort_name)], volcano={"plugin": plugin, "hierarchy": hierarchy})
    assert [(q["metadata"]["name"], q["spec"]["parent"]) for q in volcano.render_volcano_queues(f)] == [("a", "root")]


@pytest.mark.parametrize(
    "weight, expected", [(Decimal("2"), 2), (Decimal("0.4"), 1), (Decimal("2.5"), 3), (Decimal(10**6), 65535)]
)
def test_a_fair_share_weight_becomes_an_integer_queue_weight_from_1_to_65535(weight, expected):
    assert volcano.weight(weight) == expected


def test_queues_set_what_the_webhook_and_controller_would_otherwise_default():
    f = _fleet([team("a", {"a100": quota(8)}, volcanoReclaimable=False)])
    spec = by_name(volcano.render_volcano_queues(f), "a")["spec"]
    assert (spec["weight"], spec["reclaimable"], plain(spec["parent"]), spec["dequeueStrategy"]) == (
        1,
        False,
        "ml",
        "traverse",
    )


def _plugins(conf: dict) -> list[list[str]]:
    return [[p["name"] for p in tier["plugins"]] for tier in conf["tiers"]]


@pytest.mark.parametrize("plugin", ["capacity", "proportion"])
def test_the_scheduler_conf_loads_exactly_one_queue_share_plugin(plugin):
    conf = volcano.render_scheduler_conf(
        _fleet([team("a", {"a100": quota(8)}, cohort=None)], volcano={"plugin": plugin})
    )
    names = [n for tier in _plugins(conf) for n in tier]
    assert plugin in names and ({"capacity", "proportion"} - {plugin}).isdisjoint(names)


def test_the_scheduler_conf_keeps_gang_protection_and_a_strict_overcommit_factor():
    conf = volcano.render_scheduler_conf(_fleet([team("a", {"a100": quota(8)})]))
    assert _plugins(conf) == [
        ["priority", "gang", "conformance"],
        ["overcommit", "drf", "predicates", "capacity", "nodegroup", "nodeorder", "binpack"],
    ]
    gang = conf["tiers"][0]["plugins"][1]
    assert "enablePreemptable" not in gang
    assert conf["tiers"][1]["plugins"][0]["arguments"] == {"overcommit-factor": 1.0}
    assert conf["tiers"][1]["plugins"][3] == {"name": "capacity", "enableHierarchy": True}
    assert conf["actions"] == "enqueue, allocate, gangreclaim, backfill"


@pytest.mark.shared
def test_the_scheduler_conf_has_the_shape_of_the_chart_default():
    default = yaml.safe_load(shared_path("crds", "volcano", "volcano-scheduler.conf").read_text())
    conf = yaml.safe_load(volcano.render_scheduler_conf_yaml(_fleet([team("a", {"a100": quota(8)})])))
    assert set(conf) == set(default)
    assert isinstance(conf["actions"], str) and len(conf["tiers"]) == len(default["tiers"])
    assert _plugins(conf)[0] == _plugins(default)[0]


def test_the_chart_values_override_the_scheduler_conf():
    f = _fleet([team("a", {"a100": quota(8)})])
    values = volcano.render_volcano_values(f)
    assert yaml.safe_load(values["custom"]["scheduler_config_override"]) == volcano.render_scheduler_conf(f)


def plain(name: str) -> str:
    """A parent queue's name without its digest suffix (``ml-0dd40ce0`` -> ``ml``)."""
    return re.sub(r"-[0-9a-f]{8}\b", "", name)


def test_a_parent_queue_is_named_after_its_cohort_and_a_digest_of_its_quota():
    small = by_name(volcano.render_volcano_queues(_fleet([team("a", {"a100": quota(8)})])), "ml")
    large = by_name(volcano.render_volcano_queues(_fleet([team("a", {"a100": quota(16)})])), "ml")
    assert small["metadata"]["labels"]["gpufleet.dev/cohort"] == "ml" and plain(small["metadata"]["name"]) == "ml"
    assert small["metadata"]["name"] != large["metadata"]["name"]
    assert by_name(volcano.render_volcano_queues(_fleet([team("a", {"a100": quota(8)})])), "ml") == small


def _q(value: str) -> Decimal:
    from gpufleet.kubetypes import quantity

    return quantity.parse(value)


def _webhook_problems(queues: list[dict]) -> list[str]:
    """Volcano's queue webhook arithmetic (research/volcano.md section 1)."""
    problems = []
    by_name = {q["metadata"]["name"]: q["spec"] for q in queues}
    for name, spec in by_name.items():
        deserved, capability = spec.get("deserved", {}), spec.get("capability", {})
        guarantee = spec.get("guarantee", {}).get("resource", {})
        for res, amount in guarantee.items():
            if res not in deserved or _q(amount) > _q(deserved[res]):
                problems.append(f"{name}: guarantee {res} above deserved")
        for res, amount in deserved.items():
            if res in capability and _q(amount) > _q(capability[res]):
                problems.append(f"{name}: deserved {res} above capability")
        children = [s for s in by_name.values() if s["parent"] == name]
        for field in ("deserved", "guarantee"):
            get = (
                (lambda s: s.get("guarantee", {}).get("resource", {}))
                if field == "guarantee"
                else (lambda s: s.get("deserved", {}))
            )
            for res in {r for c in children for r in get(c)}:
                total = sum(_q(get(c).get(res, "0")) for c in children)
                if total > _q(get(spec).get(res, "0")):
                    problems.append(f"{name}: children's {field} {res} above the parent's")
    return problems


def test_rendered_queue_trees_pass_the_volcano_webhook_arithmetic():
    cohorts = [
        cohort("org", quota={"a100": quota(8)}),
        cohort("ml", parent="org"),
        cohort("cv", parent="org", quota={"a100": quota(8, lending=2)}),
    ]
    teams = [
        team("a", {"a100": quota(16, 8, 4)}),
        team("b", {"a100": quota(8, lending=8)}, cohort="cv"),
        team("c", {"a100": quota(8)}, cohort="cv"),
        team("d", {"a100": quota(4)}, cohort=None),
    ]
    queues = volcano.render_volcano_queues(fleet(pools=[A100], cohorts=cohorts, teams=teams))
    assert _webhook_problems(queues) == []
    assert len(queues) == 7


def test_the_arithmetic_check_catches_a_parent_below_its_children():
    queues = volcano.render_volcano_queues(_fleet([team("a", {"a100": quota(16)})]))
    by_name(queues, "ml")["spec"]["deserved"]["nvidia.com/gpu"] = "1"
    assert [plain(p) for p in _webhook_problems(queues)] == [
        "ml: children's deserved nvidia.com/gpu above the parent's"
    ]


@pytest.mark.parametrize(
    ("ml_quota", "capability"),
    [
        ({"a100": quota(0, borrowing=8)}, {"cpu": "384", "memory": "3000Gi", "nvidia.com/gpu": "24"}),
        ({"a100": quota(8, borrowing=8)}, {"cpu": "512", "memory": "4000Gi", "nvidia.com/gpu": "32"}),
    ],
)
def test_a_nested_cohort_with_a_borrowing_limit_caps_its_subtree(ml_quota, capability):
    cohorts = [cohort("org"), cohort("ml", parent="org", quota=ml_quota), cohort("cv", parent="org")]
    teams = [team("a", {"a100": quota(16)}), team("b", {"a100": quota(32)}, cohort="cv")]
    spec = by_name(volcano.render_volcano_queues(_fleet(teams, cohorts)), "ml")["spec"]
    assert spec["capability"] == capability


def _gpus(queues: list[dict], name: str) -> str | None:
    return by_name(queues, name)["spec"].get("capability", {}).get("nvidia.com/gpu")


def test_a_root_cohort_is_capped_at_its_total_since_its_teams_borrow_only_from_each_other():
    teams = [team(n, {"a100": quota(32, 16)}) for n in ("a", "b", "c")]
    queues = volcano.render_volcano_queues(_fleet(teams))
    assert [_gpus(queues, n) for n in ("ml", "a", "b", "c")] == ["96", "48", "48", "48"]


def test_a_team_that_may_borrow_more_than_its_cohort_holds_is_capped_at_the_cohort_total():
    queues = volcano.render_volcano_queues(_fleet([team("a", {"a100": quota(16, 64)}), team("b", {"a100": quota(8)})]))
    assert (_gpus(queues, "ml"), _gpus(queues, "a"), _gpus(queues, "b")) == ("24", "24", None)


def test_a_cohort_without_a_borrowing_limit_is_capped_at_what_its_parent_may_hold():
    cohorts = [cohort("org"), cohort("ml", parent="org", quota={"a100": quota(8)}), cohort("cv", parent="org")]
    teams = [team("a", {"a100": quota(16)}), team("b", {"a100": quota(32)}, cohort="cv")]
    queues = volcano.render_volcano_queues(_fleet(teams, cohorts))
    assert (_gpus(queues, "org"), _gpus(queues, "ml"), _gpus(queues, "cv")) == ("56", "56", "56")


def test_a_cohort_holds_at_most_what_its_children_may_hold_together():
    cohorts = [cohort("org"), cohort("ml", parent="org"), cohort("cv", parent="org")]
    teams = [
        team("a", {"a100": quota(8, 2)}),
        team("b", {"a100": quota(8, 2)}),
        team("c", {"a100": quota(48)}, cohort="cv"),
    ]
    queues = volcano.render_volcano_queues(_fleet(teams, cohorts))
    assert (_gpus(queues, "org"), _gpus(queues, "ml"), _gpus(queues, "cv")) == ("64", "20", "64")


def _versions_refusals(queues: list[dict]) -> list[str]:
    """Volcano's capability checks between a queue and its parents, as v1.14.1 and v1.15.1 make them.

    v1.14.1 (``validateChildAgainstParent``): the parent's capability as written, a resource it
    does not name counting as zero; v1.15.1 (``validateChildAgainstAncestor``): the nearest
    ancestor whose capability names the resource above zero.
    """
    specs = {q["metadata"]["name"]: q["spec"] for q in queues}
    out = []
    for name, spec in specs.items():
        mine = spec.get("capability", {})
        parent = specs.get(spec["parent"])
        if parent is None:
            continue
        for res, amount in mine.items():
            if _q(amount) > _q(parent.get("capability", {}).get(res, "0")):
                out.append(f"v1.14.1: {plain(name)} {res}")
            up = parent
            while up is not None and _q(up.get("capability", {}).get(res, "0")) <= 0:
                up = specs.get(up["parent"])
            if up is not None and _q(amount) > _q(up["capability"][res]):
                out.append(f"v1.15.1: {plain(name)} {res}")
    return out


NESTED = [
    cohort("org", quota={"a100": quota(8)}),
    cohort("ml", parent="org"),
    cohort("cv", parent="org", quota={"a100": quota(8, 4, 2)}),
]


@pytest.mark.parametrize(
    "teams, cohorts",
    [
        ([team(n, {"a100": quota(32, 16)}) for n in ("a", "b", "c")], [cohort("ml")]),
        ([team("a", {"a100": quota(16, 64)}), team("b", {"a100": quota(8, 0)})], [cohort("ml")]),
        ([team("a", {"a100": quota(16, 8)}), team("b", {"a100": quota(8, 4)}, cohort="cv")], NESTED),
        ([team("a", {"a100": quota(16)}), team("b", {"a100": quota(8, 12)}, cohort="cv")], NESTED),
        ([team("a", {"a100": quota(0, 8)}), team("b", {"a100": quota(0, 8)})], [cohort("ml")]),
    ],
    ids=["three-borrowers", "borrowing-above-the-total", "nested", "nested-borrower", "pure-borrowers"],
)
def test_both_volcano_versions_accept_every_child_under_its_parents(teams, cohorts):
    queues = volcano.render_volcano_queues(_fleet(teams, cohorts))
    assert _versions_refusals(queues) == [] and _webhook_problems(queues) == []


def test_the_versions_check_catches_a_parent_without_a_capability():
    queues = volcano.render_volcano_queues(_fleet([team("a", {"a100": quota(16, 8)}), team("b", {"a100": quota(8)})]))
    del by_name(queues, "ml")["spec"]["capability"]
    assert _versions_refusals(queues) == [f"v1.14.1: a {r}" for r in ("cpu", "memory", "nvidia.com/gpu")]
