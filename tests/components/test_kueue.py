"""gpufleet.pulumi.kueue: the Kueue namespace and pinned OCI chart, values from the renderer."""

from __future__ import annotations

import pytest
import yaml

from gpufleet.kubetypes.durations import format_seconds
from gpufleet.model.ownership import kueue_namespaces
from gpufleet.pulumi.kueue import KUEUE_CHART, Kueue, KueueArgs
from gpufleet.render.kueue_config import render_kueue_values
from tests.components.builders import chart_in_namespace, fleet, one
from tests.components.mocking import run_program


def install(monitor, model):
    return run_program(monitor, lambda: Kueue("kueue", KueueArgs(model.engines.kueue, render_kueue_values(model))))


def manager_config(chart) -> dict:
    return yaml.safe_load(chart.inputs["values"]["managerConfig"]["controllerManagerConfigYaml"])


def test_the_component_has_its_token_and_parents_the_namespace_and_chart(monitor):
    registered = install(monitor, fleet())
    component = one(registered, "gpufleet:kueue:Kueue")
    children = [r for r in registered if r is not component]
    assert {r.type for r in children} == {"kubernetes:core/v1:Namespace", "kubernetes:helm.sh/v4:Chart"}
    assert all(r.parent == component.urn for r in children)


@pytest.mark.parametrize(
    "engines",
    [
        {"kueue": {"chartVersion": "0.19.2"}},
        {"kueue": {"chartVersion": "0.19.1", "namespace": "kueue-platform", "releaseName": "kueue-prod"}},
    ],
)
def test_the_chart_is_the_pinned_oci_chart_installed_into_the_model_namespace(monitor, engines):
    model = fleet(engines=engines)
    registered = install(monitor, model)
    chart = chart_in_namespace(registered, model.engines.kueue)
    assert chart.inputs["chart"] == KUEUE_CHART == "oci://registry.k8s.io/kueue/charts/kueue"
    assert chart.remote and "skipAwait" not in chart.inputs


@pytest.mark.parametrize(
    "admission",
    [
        {
            "waitForPodsReady": {
                "timeout": "10m",
                "requeuingStrategy": {"backoffLimitCount": 3, "backoffBaseSeconds": 60, "backoffMaxSeconds": 1800},
            }
        },
        {
            "waitForPodsReady": {
                "timeout": "25m",
                "recoveryTimeout": "5m",
                "requeuingStrategy": {"backoffLimitCount": 7},
            },
            "frameworks": ["batch/job", "jobset.x-k8s.io/jobset"],
            "coldStartFloor": "10m",
        },
    ],
)
def test_the_manager_config_in_the_chart_values_matches_the_model(monitor, admission):
    model = fleet(admission=admission)
    config = manager_config(one(install(monitor, model), "kubernetes:helm.sh/v4:Chart"))
    wait = model.admission.wait_for_pods_ready
    assert config["kind"] == "Configuration" and config["apiVersion"] == "config.kueue.x-k8s.io/v1beta2"
    assert config["waitForPodsReady"]["timeout"] == format_seconds(wait.timeout)
    strategy = config["waitForPodsReady"]["requeuingStrategy"]
    assert (strategy["backoffLimitCount"], strategy["backoffBaseSeconds"], strategy["backoffMaxSeconds"]) == (
        wait.requeuing_strategy.backoff_limit_count,
        wait.requeuing_strategy.backoff_base_seconds,
        wait.requeuing_strategy.backoff_max_seconds,
    )
    assert config["integrations"]["frameworks"] == model.admission.frameworks
    assert config["namespace"] == model.engines.kueue.namespace


def test_the_managed_namespace_selector_lists_exactly_the_teams_namespaces(monitor):
    model = fleet()
    config = manager_config(one(install(monitor, model), "kubernetes:helm.sh/v4:Chart"))
    selector = config["managedJobsNamespaceSelector"]
    listed = {v for expr in selector["matchExpressions"] for v in expr.get("values", [])}
    assert listed == {ns for team in model.teams for ns in kueue_namespaces(model, team)}
    assert selector["matchLabels"] == {"gpufleet.dev/fleet": model.name, "gpufleet.dev/quota-system": "kueue"}
    assert not listed & {"kube-system", model.engines.kueue.namespace}
