"""The fleet context: the documented shape, read back by FleetContext.from_dict."""

from __future__ import annotations

import json
from decimal import Decimal

from gpufleet.fleetctx.context import FleetContext
from gpufleet.render.context import render_context
from tests.render.builders import fleet, pool, quota, team


def _fleet():
    return fleet(
        pools=[pool("h100"), pool("a100", system="volcano")],
        teams=[
            team("both", {"h100": quota(8), "a100": quota(8)}, namespaces=["both", "both-exp"], localQueue="lq"),
            team("vc", {"a100": quota(8)}),
            team("idle", {}, lifecycle="retired"),
        ],
        priorityClasses=[{"name": "gang", "value": 1000}],
        admission={"waitForPodsReady": {"timeout": "12m"}, "coldStartFloor": "11m"},
    )


def test_the_context_round_trips_through_fleet_context():
    ctx = FleetContext.from_dict(json.loads(json.dumps(render_context(_fleet()))))
    assert ctx.fleet == "test"
    assert ctx.team_for_namespace("both-exp").name == "both"
    assert ctx.local_queues() == {("both", "lq"), ("both-exp", "lq")}
    assert ctx.volcano_queues() == {"both", "vc"}
    assert ctx.pool("h100").total_gpus == Decimal(80)
    assert ctx.pool("h100").allocatable["memory"] == Decimal(1920 * 2**30)
    assert (render_context(_fleet())["waitForPodsReadyTimeoutSeconds"], ctx.cold_start_floor_seconds) == (720, 660)
    assert [(c.name, c.value, c.preemption_policy) for c in ctx.priority_classes] == [("gang", 1000, "Never")]


def test_teams_name_their_queues_only_on_the_engines_they_have_quota_on():
    teams = {t["name"]: t for t in render_context(_fleet())["teams"]}
    assert (teams["both"]["localQueue"], teams["both"]["volcanoQueue"], teams["both"]["pools"]) == (
        "lq",
        "both",
        ["h100", "a100"],
    )
    assert (teams["vc"]["localQueue"], teams["vc"]["volcanoQueue"]) == (None, "vc")
    assert (teams["idle"]["localQueue"], teams["idle"]["volcanoQueue"], teams["idle"]["pools"]) == (None, None, [])


def test_the_context_has_exactly_the_documented_keys():
    ctx = render_context(_fleet())
    assert list(ctx) == [
        "version",
        "fleet",
        "coldStartFloorSeconds",
        "waitForPodsReadyTimeoutSeconds",
        "kueueNamespace",
        "volcanoNamespace",
        "queueLabel",
        "gangLabel",
        "kubernetesVersion",
        "workloadGates",
        "teams",
        "pools",
        "priorityClasses",
        "manageJobsWithoutQueueName",
        "kueueManagedNamespaces",
        "kueueFrameworks",
        "partitionExemptNamespaces",
        "workloadOperators",
    ]
    assert set(ctx["pools"][0]) == {"name", "system", "nodeCount", "gpuResource", "allocatable", "nodeLabels"}
    assert ctx["pools"][0]["allocatable"] == {"cpu": "192", "memory": "1920Gi", "nvidia.com/gpu": "8"}


def test_the_context_carries_the_kueue_settings_that_decide_implicit_routing():
    fleet = _fleet()
    back = FleetContext.from_dict(render_context(fleet))
    from gpufleet.model.ownership import kueue_namespaces as owned_by_kueue

    kueue_namespaces = [
        ns
        for team in fleet.teams
        if any(p.system == "kueue" for p in fleet.pools if p.name in team.quota)
        for ns in owned_by_kueue(fleet, team)
    ]
    assert back.manage_jobs_without_queue_name is fleet.admission.manage_jobs_without_queue_name
    assert sorted(back.kueue_managed_namespaces or ()) == sorted(set(kueue_namespaces))
    assert back.kueue_holds_unlabelled(kueue_namespaces[0]) is fleet.admission.manage_jobs_without_queue_name


def test_the_context_carries_the_cluster_minor_the_gates_on_and_a_native_pool_placement():
    native = fleet(
        pools=[pool("h100", placement="native"), pool("b200", system="native")],
        teams=[team("both", {"h100": quota(8)}), team("solo", {"b200": quota(8)})],
        kubernetes={"version": "1.37.2", "featureGates": {"GenericWorkload": True, "WorkloadWithJob": True}},
    )
    data = render_context(native)
    assert (data["kubernetesVersion"], data["workloadGates"]) == ("1.37", ["GenericWorkload", "WorkloadWithJob"])
    ctx = FleetContext.from_dict(json.loads(json.dumps(data)))
    assert (ctx.kubernetes_minor, ctx.native_jobs, ctx.native_gang_api) == (37, True, True)
    assert [p.name for p in ctx.pools if p.native_gangs] == ["h100", "b200"]
    assert [p.name for p in ctx.native_pools("solo")] == ["b200"]


def test_a_default_model_runs_no_workload_gate_and_an_older_context_knows_no_cluster():
    assert render_context(_fleet())["workloadGates"] == []
    older = {k: v for k, v in render_context(_fleet()).items() if k not in ("kubernetesVersion", "workloadGates")}
    ctx = FleetContext.from_dict(older)
    assert (ctx.kubernetes_minor, ctx.native_jobs, ctx.native_gang_api) == (None, False, False)
