"""gpufleet.pulumi.fleet: the top component wires render_all into Kueue, Volcano and the quota objects."""

from __future__ import annotations

import pulumi
import pytest

from gpufleet.pulumi.fleet import GpuFleet, GpuFleetArgs
from gpufleet.render import render_all
from tests.components.builders import by_type, fleet, kueue_only, one
from tests.components.mocking import run_program

COMPONENT_TOKENS = {
    "gpufleet:fleet:GpuFleet",
    "gpufleet:kueue:Kueue",
    "gpufleet:volcano:Volcano",
    "gpufleet:quota:FleetQuota",
    "gpufleet:controller:GangAdmissionController",
}


def install(monitor, model):
    """Register the fleet; return the registrations, the component and its resolved summary."""
    built, summary = {}, {}

    def build():
        gpu_fleet = built["fleet"] = GpuFleet(model.name, GpuFleetArgs(model))
        outputs = {
            "clusterQueues": gpu_fleet.cluster_queues,
            "volcanoQueues": gpu_fleet.volcano_queues,
            "chartVersions": gpu_fleet.chart_versions,
        }
        return pulumi.Output.all(**outputs).apply(summary.update)

    registered = run_program(monitor, build)
    return registered, built["fleet"], summary


@pytest.mark.parametrize("model", [fleet(), kueue_only()], ids=["kueue+volcano", "kueue-only"])
def test_every_resource_is_a_child_of_a_gpufleet_component(monitor, model):
    registered, _, _ = install(monitor, model)
    top = one(registered, "gpufleet:fleet:GpuFleet")
    components = {r.urn: r.type for r in registered if r.type in COMPONENT_TOKENS}
    assert top.parent.endswith("pulumi:pulumi:Stack::gpufleet-test")
    for r in registered:
        if r is not top:
            assert components.get(r.parent), f"{r.type} {r.name} has parent {r.parent}"
    engines = {components[r.parent] for r in registered if r.type == "kubernetes:helm.sh/v4:Chart"}
    assert engines == (
        {"gpufleet:kueue:Kueue", "gpufleet:volcano:Volcano"}
        if model.engines.volcano.enabled
        else {"gpufleet:kueue:Kueue"}
    )


def test_volcano_is_installed_only_when_the_model_enables_it(monitor):
    registered, gpu_fleet, summary = install(monitor, kueue_only())
    assert not by_type(registered, "gpufleet:volcano:Volcano") and gpu_fleet.volcano is None
    assert not by_type(registered, "scheduling.volcano.sh/v1beta1:Queue")
    assert summary == {"clusterQueues": ["alpha", "beta"], "volcanoQueues": [], "chartVersions": {"kueue": "0.19.2"}}


def test_the_quota_component_registers_every_rendered_object(monitor):
    model = fleet()
    registered, _, _ = install(monitor, model)
    quota = one(registered, "gpufleet:quota:FleetQuota")
    assert sorted(r.name for r in registered if r.parent == quota.urn) == sorted(
        o.key for o in render_all(model).objects
    )


def test_the_summary_names_the_queues_and_chart_versions(monitor):
    model = fleet(engines={"kueue": {"chartVersion": "0.19.1"}, "volcano": {"chartVersion": "1.15.0"}})
    _, _, summary = install(monitor, model)
    summary["volcanoQueues"][0] = summary["volcanoQueues"][0].rsplit("-", 1)[0]  # the parent's digest suffix
    assert summary == {
        "clusterQueues": ["alpha", "beta"],
        "volcanoQueues": ["dev", "alpha", "beta"],
        "chartVersions": {"kueue": "0.19.1", "volcano": "1.15.0"},
    }


def test_kueue_objects_depend_on_the_kueue_chart_and_volcano_queues_on_the_volcano_chart(monitor):
    model = fleet()
    registered, _, _ = install(monitor, model)
    components = {r.urn: r.type for r in registered if r.type in COMPONENT_TOKENS}
    chart_of = {components[r.parent]: r.urn for r in registered if r.type == "kubernetes:helm.sh/v4:Chart"}
    by_name = {r.name: r for r in registered}
    for obj in render_all(model).objects:
        deps = set(by_name[obj.key].dependencies)
        expected = {
            "kueue": {chart_of["gpufleet:kueue:Kueue"]},
            "volcano": {chart_of["gpufleet:volcano:Volcano"]},
            "core": set(),
        }[obj.engine]
        assert deps & set(chart_of.values()) == expected, obj.key


@pytest.mark.parametrize("enabled", [True, False])
def test_the_gang_admission_controller_is_deployed_after_the_charts_when_enabled(monitor, enabled):
    model = fleet(controller={"enabled": enabled})
    registered, gpu_fleet, _ = install(monitor, model)
    controllers = by_type(registered, "gpufleet:controller:GangAdmissionController")
    assert len(controllers) == int(enabled) and (gpu_fleet.controller is not None) is enabled
    if enabled:
        charts = {r.urn for r in by_type(registered, "kubernetes:helm.sh/v4:Chart")}
        assert charts and charts <= set(controllers[0].dependencies)
