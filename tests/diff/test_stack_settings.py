"""``gpufleet diff`` counts what the stack's settings add: with prometheus-operator, the gang alerts.

A real ``pulumi up`` of a stack with ``gpufleet:prometheusOperator: true`` (prod) creates a
new team's PodMonitor and PrometheusRule; ``diff`` reads the model's stack as ``plan`` does.
"""

from __future__ import annotations

from gpufleet.diff import diff_fleets
from gpufleet.render.controller import ControllerSettings
from tests.diff.test_scenarios import add_vision, model

WITH_ALERTS = ControllerSettings(prometheus_operator=True)


def _alert_steps(diff) -> list[tuple[str, str]]:
    return [(s["op"], s["kind"]) for s in diff.steps if s["kind"] in ("PodMonitor", "PrometheusRule")]


def test_a_new_team_on_a_stack_with_prometheus_operator_gets_its_alerts_created():
    steps = _alert_steps(diff_fleets(model(), model(add_vision), settings=WITH_ALERTS))
    assert ("create", "PodMonitor") in steps and ("create", "PrometheusRule") in steps


def test_without_prometheus_operator_no_alert_is_a_step():
    assert _alert_steps(diff_fleets(model(), model(add_vision))) == []


def test_the_alert_steps_are_named_as_the_gang_alerts_component_names_its_resources():
    diff = diff_fleets(model(), model(add_vision), settings=WITH_ALERTS)
    names = {s["resource"] for s in diff.steps if s["kind"] == "PodMonitor"}
    assert names and all(n.startswith("gang-alerts-podmonitor-") for n in names)
