"""Chart values render the scheduler ConfigMaps the platform rules read, and findings map back to the values."""

from __future__ import annotations

import pytest
import yaml

from gpufleet.policypack import charts
from gpufleet.rules import engine
from tests.policies.builders import kueue_chart_props, kueue_config_yaml, volcano_chart_props


def test_the_kueue_chart_value_renders_the_kueue_manager_config_map():
    (rendered,) = charts.rendered_configmaps(kueue_chart_props(kueue_config_yaml("2m"), namespace="kueue"))
    assert rendered.obj["metadata"] == {"name": "kueue-manager-config", "namespace": "kueue"}
    assert rendered.obj["data"] == {"controller_manager_config.yaml": kueue_config_yaml("2m")}
    assert rendered.values == "values.managerConfig.controllerManagerConfigYaml"


def test_the_volcano_chart_value_renders_the_scheduler_config_map_in_the_default_namespace():
    props = volcano_chart_props("actions: enqueue, allocate\n")
    del props["namespace"]
    (rendered,) = charts.rendered_configmaps(props)
    assert rendered.obj["metadata"] == {"name": "volcano-scheduler-configmap", "namespace": "volcano-system"}
    assert rendered.obj["data"] == {"volcano-scheduler.conf": "actions: enqueue, allocate\n"}


@pytest.mark.parametrize(
    "props", [{}, {"values": {}}, {"values": {"controllerManager": {"replicas": 2}}}, {"values": "x"}]
)
def test_a_chart_without_scheduler_values_renders_nothing(props):
    assert charts.rendered_configmaps(props) == []


def test_a_configuration_given_as_a_mapping_is_rendered_as_yaml():
    props = kueue_chart_props("")
    props["values"]["managerConfig"]["controllerManagerConfigYaml"] = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
    }
    (rendered,) = charts.rendered_configmaps(props)
    assert yaml.safe_load(rendered.obj["data"]["controller_manager_config.yaml"])["kind"] == "Configuration"


def test_a_finding_in_the_rendered_config_map_is_reported_at_the_chart_value():
    (rendered,) = charts.rendered_configmaps(kueue_chart_props(kueue_config_yaml("2m")))
    (found,) = engine.check_object(rendered.obj, select=["GANG502"])
    assert found.path == "data[controller_manager_config.yaml].waitForPodsReady.timeout"
    assert (
        rendered.values_path(found.path) == "values.managerConfig.controllerManagerConfigYaml.waitForPodsReady.timeout"
    )


@pytest.mark.parametrize(
    "token, is_chart",
    [
        ("kubernetes:helm.sh/v4:Chart", True),
        ("kubernetes:helm.sh/v3:Release", True),
        ("kubernetes:core/v1:ConfigMap", False),
    ],
)
def test_helm_resources_are_recognised_as_charts(token, is_chart):
    assert charts.is_chart(token) is is_chart
