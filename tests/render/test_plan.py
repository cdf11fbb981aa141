"""The plan: per-pool rows and the warnings a platform team should see."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.render.builders import cohort, fleet, pool, quota, team
from tests.render.builders import plan_of as _plan


def test_rows_show_nominal_borrowable_lendable_and_share_of_the_pool():
    f = fleet(
        pools=[pool(nodes=10)],
        cohorts=[cohort("ml", quota={"h100": quota(8)})],
        teams=[
            team("a", {"h100": quota(40, 20, 10)}),
            team("b", {"h100": quota(16)}),
            team("c", {"h100": quota(16)}, cohort=None),
        ],
    )
    [pool_plan] = _plan(f).pools
    rows = {r.owner: r for r in pool_plan.rows}
    assert pool_plan.capacity == 80
    assert (rows["a"].nominal, rows["a"].borrowable, rows["a"].lendable, rows["a"].share) == (
        40,
        60,
        10,
        Decimal("50.0"),
    )
    assert (rows["b"].borrowable, rows["b"].lendable) == (None, 16)
    assert (rows["c"].borrowable, rows["c"].lendable) == (16, 0)
    assert rows["cohort ml"].nominal == 8
    assert [(rows[o].cohort, rows[o].lifecycle) for o in ("a", "c", "cohort ml")] == [
        ("ml", "active"),
        (None, "active"),
        (None, "active"),
    ]


def test_unassigned_capacity_and_oversubscribed_borrowing_are_warned_about():
    f = fleet(pools=[pool(nodes=4)], teams=[team("a", {"h100": quota(8, 24)}), team("b", {"h100": quota(8, 24)})])
    [pool_plan] = _plan(f).pools
    text = " | ".join(pool_plan.warnings)
    assert "16 nvidia.com/gpu (50.0%) are in no team's or cohort's nominal quota" in text
    assert (
        "add up to 64 of the pool's 32 nvidia.com/gpu: the limits are first come, first served within the cohort's unused quota"
        in text
    )
    assert "claim" not in text  # borrowing never admits beyond the cohort's total


@pytest.mark.parametrize(
    "system, volcano, engine_words",
    [
        ("kueue", {}, "(Kueue never admits beyond the cohort's total)"),
        ("volcano", {}, "(Volcano caps the cohort's queue at what the cohort holds)"),
        ("volcano", {"hierarchy": False}, "the pool's idle GPUs (each team's Volcano queue sits under root"),
    ],
    ids=["kueue", "volcano-hierarchy", "volcano-flat"],
)
def test_oversubscribed_borrowing_is_explained_in_the_words_of_the_engine_that_bounds_it(system, volcano, engine_words):
    teams = [team(n, {"h100": quota(8, 24)}) for n in ("a", "b")]
    f = fleet(pools=[pool(nodes=4, system=system)], teams=teams, volcano=volcano)
    text = " | ".join(_plan(f).pools[0].warnings)
    assert engine_words in text
    assert ("Kueue" in text) == (system == "kueue") and ("Volcano" in text) == (system == "volcano")


def test_teams_without_a_cohort_and_pools_without_quota_are_warned_about():
    f = fleet(pools=[pool("h100"), pool("spare")], cohorts=[], teams=[team("solo", {"h100": quota(8)}, cohort=None)])
    text = " | ".join(_plan(f).warnings)
    assert "no cohort" in text and "solo" in text
    assert "pool spare has no quota" in text


def test_the_object_summary_counts_each_kind_including_the_configmaps_engines_and_controller():
    f = fleet(
        pools=[pool("h100"), pool("a100", system="volcano")],
        teams=[team("a", {"h100": quota(8), "a100": quota(8)}, namespaces=["a", "a2"])],
    )
    assert _plan(f).objects == {
        "Namespace": 3 + 2 + 1,
        "ResourceFlavor": 1,
        "Cohort": 1,
        "ClusterQueue": 1,
        "LocalQueue": 2,
        "Volcano Queue": 2,
        "ConfigMap": 3,
        "Helm chart": 2,
        "Secret": 2,
        "ServiceAccount": 1,
        "Deployment": 1,
        "PodDisruptionBudget": 1,
        "Service": 1,
        "NetworkPolicy": 1,
        "ValidatingWebhookConfiguration": 1,
        "MutatingWebhookConfiguration": 1,
        "ValidatingAdmissionPolicy": 1,
        "ValidatingAdmissionPolicyBinding": 1,
    }  # the namespace-label guard


def test_with_prometheus_operator_the_summary_counts_the_gang_and_controller_alerts():
    from gpufleet.render.controller import ControllerSettings

    f = fleet(pools=[pool("h100")], teams=[team("a", {"h100": quota(8)})])
    objects = _plan(f, ControllerSettings(prometheus_operator=True)).objects
    assert objects["PodMonitor"] == 1 and objects["PrometheusRule"] == 3 and objects["ServiceMonitor"] == 1


def test_a_draining_team_shows_its_lifecycle_and_cohort_in_the_plan():
    f = fleet(
        pools=[pool(nodes=4)],
        teams=[team("a", {"h100": quota(8)}, lifecycle="draining"), team("b", {"h100": quota(8)})],
    )
    [pool_plan] = _plan(f).pools
    assert [(r.owner, r.cohort, r.lifecycle) for r in pool_plan.rows] == [
        ("a", "ml", "draining"),
        ("b", "ml", "active"),
    ]
