"""gpufleet.pulumi.quota: one resource per rendered object, on its chart, ordered and protected."""

from __future__ import annotations

import pulumi_kubernetes as k8s
import pytest

from gpufleet.pulumi.quota import FleetQuota, FleetQuotaArgs
from gpufleet.render import RenderedObject, render_all
from tests.components.builders import fleet, one, plain, team
from tests.components.mocking import run_program

QUOTA_KINDS = {"Cohort", "ClusterQueue", "LocalQueue", "Queue"}


def chart(name: str) -> k8s.helm.v4.Chart:
    """An engine chart (a remote component, as in the stack) for the quota objects to depend on."""
    return k8s.helm.v4.Chart(name, chart=name, version="0.0.0")


def install(monitor, objects):
    def build():
        charts = {"kueue": chart("kueue"), "volcano": chart("volcano")}
        FleetQuota("quota", FleetQuotaArgs(tuple(objects), charts))

    registered = run_program(monitor, build)
    return registered, {r.name: r for r in registered}


def test_every_rendered_object_becomes_one_child_of_the_component_with_its_key_and_type(monitor):
    rendered = render_all(fleet())
    registered, by_name = install(monitor, rendered.objects)
    component = one(registered, "gpufleet:quota:FleetQuota")
    for obj in rendered.objects:
        resource = by_name[obj.key]
        api_version = obj.manifest["apiVersion"]
        assert resource.type == f"kubernetes:{'core/v1' if api_version == 'v1' else api_version}:{obj.manifest['kind']}"
        assert resource.parent == component.urn


def test_each_resource_has_exactly_the_renderers_manifest_as_inputs(monitor):
    rendered = render_all(fleet())
    _, by_name = install(monitor, rendered.objects)
    for obj in rendered.objects:
        assert plain(by_name[obj.key].inputs) == obj.manifest, obj.key


def test_a_workload_priority_class_keeps_its_top_level_value_and_description(monitor):
    rendered = render_all(fleet())
    _, by_name = install(monitor, rendered.objects)
    resource = by_name["workloadpriorityclass-gang-standard"]
    assert (plain(resource.inputs["value"]), resource.inputs["description"]) == (1000, "gangs")


@pytest.mark.parametrize(("engine", "chart_name"), [("kueue", "kueue"), ("volcano", "volcano"), ("core", None)])
def test_every_object_depends_on_its_engines_chart_and_on_no_other_chart(monitor, engine, chart_name):
    rendered = render_all(fleet())
    registered, by_name = install(monitor, rendered.objects)
    charts = {r.name: r.urn for r in registered if r.type == "kubernetes:helm.sh/v4:Chart"}
    objects = [o for o in rendered.objects if o.engine == engine]
    assert objects, f"the unit fleet renders no {engine} object"
    for obj in objects:
        deps = set(by_name[obj.key].dependencies)
        assert deps & set(charts.values()) == ({charts[chart_name]} if chart_name else set()), obj.key


@pytest.mark.parametrize(
    ("child", "parent"),
    [
        ("localqueue-alpha-alpha", "clusterqueue-alpha"),
        ("localqueue-beta-beta-sandbox", "clusterqueue-beta"),
        ("clusterqueue-alpha", "cohort-dev"),
        ("clusterqueue-alpha", "resourceflavor-l4"),
        ("volcanoqueue-alpha", "volcanoqueue-dev-"),
    ],
)
def test_a_child_object_depends_on_its_parent_so_parents_are_created_first(monitor, child, parent):
    _, by_name = install(monitor, render_all(fleet()).objects)
    parent = next(key for key in by_name if key == parent or (parent.endswith("-") and key.startswith(parent)))
    assert by_name[parent].urn in by_name[child].dependencies


def test_live_quota_objects_are_protected_and_a_retired_teams_are_not(monitor):
    model = fleet(
        teams=[
            team("alpha"),
            team("beta", lifecycle="draining"),
            team(
                "gamma", lifecycle="retired", quota={"l4": {"nominal": 8}}, namespaces=["gamma"], volcanoNamespaces=[]
            ),
        ]
    )
    rendered = render_all(model)
    _, by_name = install(monitor, rendered.objects)
    assert by_name["clusterqueue-alpha"].protect and by_name["clusterqueue-beta"].protect
    assert by_name["localqueue-beta-beta"].protect and by_name["volcanoqueue-alpha"].protect
    assert by_name["cohort-dev"].protect
    assert not by_name["clusterqueue-gamma"].protect and not by_name["localqueue-gamma-gamma"].protect
    assert not by_name["priorityclass-gang-standard"].protect
    assert (
        by_name["namespace-alpha"].protect
        and by_name["namespace-beta-vc"].protect
        and not by_name["namespace-gamma"].protect
    )


def test_protection_follows_the_renderer_for_every_object(monitor):
    rendered = render_all(fleet(teams=[team("alpha"), team("beta", lifecycle="retired")]))
    _, by_name = install(monitor, rendered.objects)
    assert {o.key: by_name[o.key].protect for o in rendered.objects} == {o.key: o.protect for o in rendered.objects}
    assert any(o.protect for o in rendered.objects) and not all(o.protect for o in rendered.objects)


def obj(key: str, api: str, kind: str, engine: str, **spec) -> RenderedObject:
    return RenderedObject(
        key, {"apiVersion": api, "kind": kind, "metadata": {"name": key}, "spec": spec}, engine, False
    )


@pytest.mark.parametrize(
    ("objects", "message"),
    [
        (
            [
                obj("lq", "kueue.x-k8s.io/v1beta2", "LocalQueue", "kueue", clusterQueue="cq"),
                obj("cq", "kueue.x-k8s.io/v1beta2", "ClusterQueue", "kueue"),
            ],
            "parents must come first",
        ),
        ([obj("cm", "v1", "ConfigMap", "core")], "no typed resource for core kind"),
        ([obj("q", "scheduling.volcano.sh/v1beta1", "Queue", "yunikorn")], "not installed by this stack"),
    ],
)
def test_a_broken_render_contract_is_a_clear_error(monitor, objects, message):
    with pytest.raises(ValueError, match=message):
        install(monitor, objects)
