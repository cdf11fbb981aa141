"""The PodMonitors and PrometheusRules of the gang alerts: one per team, valid against the real CRDs, pure."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from gpufleet.crdschema import CrdSet
from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.render.alerts import ALERTS, render_rule_file
from gpufleet.render.controller import ControllerSettings
from gpufleet.render.files import monitoring_files
from gpufleet.render.monitoring import render_monitoring
from gpufleet.stack.folder import folder_files
from tests.render.builders import fleet, pool, quota, team

ROOT = Path(__file__).resolve().parents[2]
STACKS = {name: load_model(ROOT / "stacks" / f"{name}.fleet.yaml") for name in ("dev", "prod")}


def _alerts(rule_file: dict) -> list[dict]:
    return [r for g in rule_file["groups"] for r in g["rules"] if "alert" in r]


@pytest.mark.parametrize("name", sorted(STACKS))
def test_every_prometheus_rule_is_valid_against_the_real_crd_and_loses_no_field(crds_dir, name):
    crds = CrdSet.load(crds_dir / "prometheus-operator")
    rules = [m for m in render_monitoring(STACKS[name]) if m["kind"] == "PrometheusRule"]
    assert rules and all(crds.knows(m) for m in rules)
    assert [i.render() for m in rules for i in crds.validate(m) + crds.pruned_fields(m)] == []


@pytest.mark.parametrize("name", sorted(STACKS))
def test_the_pod_monitor_endpoint_fields_are_valid_in_the_shared_endpoint_schema(crds_dir, name):
    """../shared has no PodMonitor CRD (only PrometheusRule and ServiceMonitor, prometheus-operator v0.93.0).

    A PodMonitor's selector, namespaceSelector and endpoint fields used here (port, path,
    relabelings) have the same Go types as a ServiceMonitor's, so the same spec checked
    as a ServiceMonitor validates them; the PodMonitor kind itself is not validated here.
    """
    crds = CrdSet.load(crds_dir / "prometheus-operator")
    for monitor in (m for m in render_monitoring(STACKS[name]) if m["kind"] == "PodMonitor"):
        as_service = copy.deepcopy(monitor)
        as_service["kind"] = "ServiceMonitor"
        as_service["spec"]["endpoints"] = as_service["spec"].pop("podMetricsEndpoints")
        assert [i.render() for i in crds.validate(as_service) + crds.pruned_fields(as_service)] == []


def test_each_team_gets_a_pod_monitor_for_its_namespaces_and_a_rule_per_pool_it_has_quota_on():
    model = fleet(
        pools=[pool("h100"), pool("l4")],
        teams=[team("a", {"h100": quota(8), "l4": quota(4)}, namespaces=["a", "a-exp"]), team("b", {"l4": quota(4)})],
    )
    out = {(m["kind"], m["metadata"]["name"]): m for m in render_monitoring(model)}
    assert out[("PodMonitor", "gpufleet-steps-a")]["spec"]["namespaceSelector"] == {"matchNames": ["a", "a-exp"]}
    groups = [g["name"] for g in out[("PrometheusRule", "gpufleet-gangs-a")]["spec"]["groups"]]
    assert groups == ["gpufleet-gangs-a-h100", "gpufleet-gangs-a-l4"]
    assert [g["name"] for g in out[("PrometheusRule", "gpufleet-gangs-b")]["spec"]["groups"]] == ["gpufleet-gangs-b-l4"]


def test_every_alert_has_the_labels_and_annotations_routing_needs():
    for rule in _alerts(render_rule_file(STACKS["prod"])):
        assert rule["alert"] in ALERTS
        assert {"team", "pool", "severity"} <= set(rule["labels"])
        assert {"namespace", "gang"} <= set(rule["labels"]) or "by (namespace, gang)" in rule["expr"]
        assert set(rule["annotations"]) == {"summary", "description", "runbook_url"}
        assert rule["annotations"]["runbook_url"].endswith(f"/docs/runbooks/{rule['alert']}.md")
        assert (ROOT / "docs" / "runbooks" / f"{rule['alert']}.md").is_file()


def test_no_alert_reads_pending_pods_without_running_ones():
    for rule in _alerts(render_rule_file(STACKS["prod"])):
        if 'phase="Pending"' in rule["expr"]:
            assert 'phase="Running"' in rule["expr"], rule["alert"]


def test_budgets_come_from_the_model():
    model = fleet(
        pools=[pool("h100", coldStartBudget="7m"), pool("l4", startupBudget="20m")],
        teams=[team("a", {"h100": quota(8), "l4": quota(4)})],
        observability={"rendezvousAllowance": "3m", "stallWindow": "30m"},
    )
    assert [model.startup_budget(p) for p in model.pools] == [600, 1200]
    by_pool = {(r["labels"]["pool"], r["alert"]): r for r in _alerts(render_rule_file(model))}
    assert "> 600\n" in by_pool[("h100", "GangNoFirstStep")]["expr"]
    assert by_pool[("l4", "GangPartiallyRunning")]["for"] == "1200s"
    assert "> 1800\n" in by_pool[("l4", "GangStepStalled")]["expr"]


def test_a_pool_without_a_cold_start_budget_starts_from_the_cold_start_floor():
    model = fleet(
        pools=[pool("h100")],
        teams=[team("a", {"h100": quota(8)})],
        admission={"coldStartFloor": "12m", "waitForPodsReady": {"timeout": "15m"}},
    )
    assert model.startup_budget(model.pools[0]) == 12 * 60 + 300


def test_retired_teams_and_teams_without_quota_get_no_alerts():
    model = fleet(
        teams=[
            team("a", {"h100": quota(8)}),
            team("gone", {"h100": quota(0)}, lifecycle="retired"),
            team("idle", {}, lifecycle="draining"),
        ]
    )
    names = {m["metadata"]["name"] for m in render_monitoring(model)}
    assert names == {"gpufleet-gangs", "gpufleet-steps-a", "gpufleet-gangs-a", "gpufleet-controller"}


@pytest.mark.parametrize("enabled", [True, False])
def test_the_controllers_alerts_are_rendered_only_with_the_controller(enabled):
    model = fleet(controller={"enabled": enabled})
    rules = {m["metadata"]["name"] for m in render_monitoring(model) if m["kind"] == "PrometheusRule"}
    groups = {g["name"] for g in render_rule_file(model)["groups"]}
    assert ("gpufleet-controller" in rules) is enabled and ("gpufleet-controller" in groups) is enabled


def test_disabled_observability_renders_nothing():
    model = fleet(observability={"enabled": False})
    assert render_monitoring(model) == [] and monitoring_files(model) == {}
    assert not any(
        k.startswith(("prometheus/", "monitoring/", "kube-state-metrics/"))
        for k in folder_files(model, render_all(model), ControllerSettings())
    )


def test_rule_labels_reach_every_object_for_prometheus_selectors():
    model = fleet(observability={"ruleLabels": {"release": "kube-prometheus-stack"}})
    assert all(m["metadata"]["labels"]["release"] == "kube-prometheus-stack" for m in render_monitoring(model))


def test_rendering_is_deterministic_and_does_not_touch_the_model():
    model = STACKS["prod"]
    before = model.model_dump()
    assert render_monitoring(model) == render_monitoring(model)
    assert model.model_dump() == before
