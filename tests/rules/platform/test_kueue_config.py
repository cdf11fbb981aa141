"""Reading Kueue manager configurations: versions, embedded YAML, feature gates (Go durations: tests/test_durations.py)."""

from __future__ import annotations

import pytest

from gpufleet.rules.platform._kueue_config import deployment_gate_args, kueue_configs
from tests.rules import kueue_configs as k


@pytest.mark.parametrize(
    "config, enabled",
    [
        (k.configuration("v1beta2"), True),
        (k.configuration("v1beta1"), False),
        (k.configuration("v1beta1", waitForPodsReady={"enable": True}), True),
        (k.configuration("v1beta2", featureGates={"DisableWaitForPodsReady": True}), False),
    ],
)
def test_wait_for_pods_ready_defaults_follow_the_config_version(config, enabled):
    for obj, base in ((config, ""), (k.config_map(config), "data[controller_manager_config.yaml]")):
        [found] = kueue_configs(obj)
        assert (found.wait_enabled, found.base) == (enabled, base)


def test_an_unparseable_embedded_config_is_reported_not_raised():
    cm = k.config_map(k.configuration())
    cm["data"]["controller_manager_config.yaml"] = "waitForPodsReady: [unclosed"
    [found] = kueue_configs(cm)
    assert found.error and "line" in found.error


def test_other_config_maps_hold_no_kueue_configuration():
    assert list(kueue_configs({"apiVersion": "v1", "kind": "ConfigMap", "data": {"other": "x"}})) == []


@pytest.mark.parametrize(
    "arg, flagged",
    [
        ("--feature-gates=DisableWaitForPodsReady=true", True),
        ("--feature-gates=A=true, DisableWaitForPodsReady=True", True),
        ("--feature-gates=DisableWaitForPodsReady=false", False),
        ("--zap-log-level=2", False),
    ],
)
def test_the_disable_gate_is_found_in_deployment_args(arg, flagged):
    dep = {"kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"args": ["--config=x", arg]}]}}}}
    assert [p for p, _ in deployment_gate_args(dep)] == (
        ["spec.template.spec.containers[0].args[1]"] if flagged else []
    )
