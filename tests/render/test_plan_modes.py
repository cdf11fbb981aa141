"""The plan shows a dedicated pool's owner and stranded GPUs, and a coscheduling pool as one team's."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.render.kueue_config import render_manager_config
from tests.render.builders import plan_of

MIXED = load_model(Path(__file__).resolve().parents[2] / "stacks" / "mixed.fleet.yaml")
PLAN = plan_of(MIXED)
POOLS = {p.pool.name: p for p in PLAN.pools}


def test_a_dedicated_pool_is_shown_with_its_team_and_all_its_gpus_stranded():
    vault = POOLS["vault"]
    assert (vault.mode, vault.stranded) == ("dedicated to secure", Decimal(64))
    assert vault.warnings[0].startswith("dedicated to team secure: 64 nvidia.com/gpu stranded")


def test_a_coscheduling_pool_is_one_teams_and_lends_nothing():
    l40s = POOLS["l40s"]
    assert l40s.mode == "one team" and l40s.stranded == 0
    assert [(r.owner, r.lendable) for r in l40s.rows] == [("robotics", Decimal(0))]


def test_shared_pools_strand_nothing():
    assert {(POOLS[n].mode, POOLS[n].stranded) for n in ("h100", "a100")} == {("shared", Decimal(0))}


def test_teams_isolated_on_purpose_are_not_warned_about_their_missing_cohort():
    assert not any("no cohort" in w for w in PLAN.warnings)


def test_kueue_does_not_manage_the_coscheduling_teams_namespaces():
    selector = render_manager_config(MIXED)["managedJobsNamespaceSelector"]
    managed = {v for e in selector["matchExpressions"] for v in e["values"]}
    assert "robotics" not in managed and {"llm", "vision", "secure"} <= managed


def _native_plan():
    from tests.render.builders import fleet, pool, quota, team

    model = fleet(
        pools=[pool("h100", placement="native"), pool("b200", system="native")],
        teams=[team("research", {"h100": quota(16, 8)}), team("solo", {"b200": quota(80)}, cohort=None)],
        kubernetes={"version": "1.37", "featureGates": {"GenericWorkload": True, "WorkloadWithJob": True}},
    )
    return plan_of(model)


def test_native_gang_pools_are_listed_with_their_mode_and_what_the_control_plane_needs():
    plan = _native_plan()
    assert {p.pool.name: p.mode for p in plan.pools} == {
        "h100": "shared, native gangs",
        "b200": "one team, native gangs",
    }
    needs = [w for w in plan.warnings if w.startswith("native gang pools")]
    assert len(needs) == 1
    assert "--feature-gates=GenericWorkload=true,WorkloadWithJob=true" in needs[0]
    assert "--runtime-config=scheduling.k8s.io/v1beta1=true" in needs[0] and "no object is rendered" in needs[0]


def test_a_native_pool_renders_no_object_of_its_own():
    from tests.render.builders import fleet, pool, quota, team

    gates = {"version": "1.37", "featureGates": {"GenericWorkload": True, "WorkloadWithJob": True}}
    per_pod = fleet(pools=[pool("h100")], teams=[team("research", {"h100": quota(16, 8)})], kubernetes=gates)
    native = fleet(
        pools=[pool("h100", placement="native")], teams=[team("research", {"h100": quota(16, 8)})], kubernetes=gates
    )
    assert [o.manifest for o in render_all(per_pod).objects] == [o.manifest for o in render_all(native).objects]
