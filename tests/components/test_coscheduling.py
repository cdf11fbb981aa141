"""gpufleet.pulumi.coscheduling: the scheduler-plugins namespace and pinned chart, values from the renderer; GpuFleet installs it only for coscheduling pools."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.model import load_model
from gpufleet.pulumi.coscheduling import COSCHEDULING_REPO, Coscheduling, CoschedulingArgs
from gpufleet.pulumi.fleet import GpuFleet, GpuFleetArgs
from gpufleet.render.coscheduling import render_coscheduling_values
from tests.components.builders import fleet, one
from tests.components.mocking import run_program

MIXED = load_model(Path(__file__).resolve().parents[2] / "stacks" / "mixed.fleet.yaml")


def install(monitor, model):
    return run_program(
        monitor,
        lambda: Coscheduling(
            "coscheduling", CoschedulingArgs(model.engines.coscheduling, render_coscheduling_values(model))
        ),
    )


def test_the_component_has_its_token_and_parents_the_namespace_and_chart(monitor):
    registered = install(monitor, MIXED)
    component = one(registered, "gpufleet:coscheduling:Coscheduling")
    children = [r for r in registered if r is not component]
    assert {r.type for r in children} == {"kubernetes:core/v1:Namespace", "kubernetes:helm.sh/v4:Chart"}
    assert all(r.parent == component.urn for r in children)


def test_the_chart_is_the_pinned_scheduler_plugins_chart_with_the_rendered_values(monitor):
    chart = one(install(monitor, MIXED), "kubernetes:helm.sh/v4:Chart")
    engine = MIXED.engines.coscheduling
    assert chart.inputs["chart"] == "scheduler-plugins"
    assert (
        chart.inputs["repositoryOpts"]
        == {"repo": COSCHEDULING_REPO}
        == {"repo": "https://scheduler-plugins.sigs.k8s.io"}
    )
    assert (chart.inputs["version"], chart.inputs["namespace"], chart.inputs["name"]) == (
        "0.34.7",
        engine.namespace,
        engine.release_name,
    )
    assert chart.inputs["values"]["plugins"]["enabled"] == ["Coscheduling"]
    assert chart.inputs["values"]["scheduler"]["name"] == "scheduler-plugins-scheduler"
    assert "skipCrds" not in chart.inputs and "skipAwait" not in chart.inputs


@pytest.mark.parametrize(
    ("model", "installed"),
    [
        pytest.param(MIXED, True, id="a coscheduling pool installs the second scheduler"),
        pytest.param(fleet(), False, id="Kueue and Volcano pools only: no second scheduler"),
    ],
)
def test_the_fleet_installs_scheduler_plugins_only_for_coscheduling_pools(monitor, model, installed):
    registered = run_program(monitor, lambda: GpuFleet("fleet", GpuFleetArgs(model)))
    tokens = [r.type for r in registered]
    assert ("gpufleet:coscheduling:Coscheduling" in tokens) is installed
    charts = [r.inputs["chart"] for r in registered if r.type == "kubernetes:helm.sh/v4:Chart"]
    assert ("scheduler-plugins" in charts) is installed


def test_the_coscheduling_pool_adds_no_quota_object(monitor):
    registered = run_program(monitor, lambda: GpuFleet("fleet", GpuFleetArgs(MIXED)))
    queues = [
        r.inputs["metadata"]["name"]
        for r in registered
        if r.type.startswith("kubernetes:kueue.x-k8s.io") or r.type.startswith("kubernetes:scheduling.volcano.sh")
    ]
    assert "robotics" not in queues and "secure" in queues


def test_the_dedicated_pool_renders_its_flavor_with_the_team_taint(monitor):
    registered = run_program(monitor, lambda: GpuFleet("fleet", GpuFleetArgs(MIXED)))
    flavors = {r.inputs["metadata"]["name"]: r.inputs["spec"] for r in registered if r.type.endswith("ResourceFlavor")}
    assert flavors["vault"]["nodeTaints"] == [
        {"key": "gpufleet.dev/dedicated", "value": "secure", "effect": "NoExecute"}
    ]
