"""gpufleet.pulumi.observability: the gang alerts as PodMonitors and PrometheusRules, added by the fleet with prometheus-operator."""

from __future__ import annotations

from gpufleet.pulumi.fleet import GpuFleet, GpuFleetArgs
from gpufleet.pulumi.observability import GangAlerts, GangAlertsArgs
from gpufleet.render.controller.common import ControllerSettings
from gpufleet.render.monitoring import render_monitoring
from tests.components.builders import by_type, fleet, one, plain
from tests.components.mocking import run_program

TOKEN = "gpufleet:observability:GangAlerts"


def test_the_component_creates_every_rendered_monitor_and_rule_as_its_children(monitor):
    model = fleet()
    registered = run_program(monitor, lambda: GangAlerts("ga", GangAlertsArgs(model)))
    component = one(registered, TOKEN)
    children = [r for r in registered if r is not component]
    assert children and all(r.parent == component.urn for r in children)
    created = sorted((r.type, r.inputs["metadata"]["name"]) for r in children)
    expected = sorted(
        (f"kubernetes:monitoring.coreos.com/v1:{m['kind']}", m["metadata"]["name"]) for m in render_monitoring(model)
    )
    assert created == expected


def test_the_rules_reach_the_cluster_as_rendered(monitor):
    model = fleet()
    registered = run_program(monitor, lambda: GangAlerts("ga", GangAlertsArgs(model)))
    rule = next(r for r in by_type(registered, "PrometheusRule") if r.inputs["metadata"]["name"] == "gpufleet-gangs")
    rendered = next(m for m in render_monitoring(model) if m["metadata"]["name"] == "gpufleet-gangs")
    assert plain(rule.inputs["spec"]) == rendered["spec"]


def _install(monitor, prometheus_operator: bool, **sections):
    model = fleet(**sections)
    settings = ControllerSettings(prometheus_operator=prometheus_operator)
    return run_program(monitor, lambda: GpuFleet(model.name, GpuFleetArgs(model, settings)))


def test_the_fleet_adds_the_gang_alerts_when_prometheus_operator_is_present(monitor):
    registered = _install(monitor, True)
    alerts = one(registered, TOKEN)
    assert alerts.parent == one(registered, "gpufleet:fleet:GpuFleet").urn
    assert by_type(registered, "PodMonitor")


def test_without_prometheus_operator_there_are_no_gang_alerts(monitor):
    assert not by_type(_install(monitor, False), "GangAlerts")


def test_disabled_observability_adds_no_component(monitor):
    assert not by_type(_install(monitor, True, observability={"enabled": False}), "GangAlerts")
