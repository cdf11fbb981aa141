"""The Kueue manager Configuration and the chart values."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpufleet.model import load_model
from gpufleet.render import kueue_config, render_all
from gpufleet.workloads.selectors import matches
from tests.conftest import shared_path
from tests.render.builders import fleet, pool, quota, team

STACKS = Path(__file__).resolve().parents[2] / "stacks"


def test_wait_for_pods_ready_is_written_out_with_go_durations():
    f = fleet(
        admission={
            "waitForPodsReady": {
                "timeout": "15m",
                "recoveryTimeout": "5m",
                "blockAdmission": True,
                "requeuingStrategy": {"backoffLimitCount": 3, "backoffBaseSeconds": 30, "backoffMaxSeconds": 900},
            }
        }
    )
    assert kueue_config.render_manager_config(f)["waitForPodsReady"] == {
        "timeout": "15m0s",
        "recoveryTimeout": "5m0s",
        "blockAdmission": True,
        "requeuingStrategy": {
            "timestamp": "Eviction",
            "backoffLimitCount": 3,
            "backoffBaseSeconds": 30,
            "backoffMaxSeconds": 900,
        },
    }


def test_an_unset_recovery_timeout_is_rendered_equal_to_the_timeout():
    f = fleet(admission={"waitForPodsReady": {"timeout": "1h"}})
    wait = kueue_config.render_manager_config(f)["waitForPodsReady"]
    assert (wait["timeout"], wait["recoveryTimeout"]) == ("1h0m0s", "1h0m0s")


def test_an_unset_backoff_limit_is_left_out_rather_than_written_as_null():
    f = fleet(admission={"waitForPodsReady": {"requeuingStrategy": {"backoffLimitCount": None}}})
    assert "backoffLimitCount" not in kueue_config.render_manager_config(f)["waitForPodsReady"]["requeuingStrategy"]


def test_managed_namespaces_are_exactly_the_kueue_teams_namespaces():
    f = fleet(
        pools=[pool("h100"), pool("a100", system="volcano")],
        teams=[
            team("b", {"h100": quota(8)}, namespaces=["b", "b-dev"]),
            team("a", {"h100": quota(8)}),
            team("v", {"a100": quota(8)}),
        ],
    )
    selector = kueue_config.render_manager_config(f)["managedJobsNamespaceSelector"]
    assert selector == {
        "matchLabels": {"gpufleet.dev/fleet": "test", "gpufleet.dev/quota-system": "kueue"},
        "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["a", "b", "b-dev"]}],
    }
    assert "kube-system" not in selector["matchExpressions"][0]["values"]


def test_without_kueue_teams_the_managed_selector_matches_no_namespace():
    f = fleet(pools=[pool("a100", system="volcano")], teams=[team("v", {"a100": quota(8)})])
    assert kueue_config.render_manager_config(f)["managedJobsNamespaceSelector"] == {
        "matchLabels": {"gpufleet.dev/fleet": "test", "gpufleet.dev/quota-system": "kueue"},
        "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "DoesNotExist"}],
    }


@pytest.mark.parametrize(
    "fair_sharing, expected",
    [
        (None, None),
        ({"preemptionStrategies": ["LessThanInitialShare"]}, {"preemptionStrategies": ["LessThanInitialShare"]}),
    ],
)
def test_fair_sharing_is_present_only_when_the_model_turns_it_on(fair_sharing, expected):
    f = fleet(admission={"fairSharing": fair_sharing} if fair_sharing else {})
    assert kueue_config.render_manager_config(f).get("fairSharing") == expected


def test_the_config_carries_the_namespace_frameworks_and_queue_name_policy():
    f = fleet(
        engines={"kueue": {"namespace": "queueing"}},
        admission={"frameworks": ["batch/job", "pod"], "manageJobsWithoutQueueName": False},
    )
    config = kueue_config.render_manager_config(f)
    assert (config["apiVersion"], config["kind"], config["namespace"]) == (
        "config.kueue.x-k8s.io/v1beta2",
        "Configuration",
        "queueing",
    )
    assert config["integrations"] == {"frameworks": ["batch/job", "pod"]}
    assert config["manageJobsWithoutQueueName"] is False


@pytest.mark.shared
def test_the_server_settings_match_the_upstream_sample_configuration():
    sample = yaml.safe_load(shared_path("crds", "kueue", "controller_manager_config.yaml").read_text())
    config = kueue_config.render_manager_config(fleet())
    for key in ("health", "metrics", "webhook", "leaderElection", "controller", "clientConnection"):
        assert config[key] == sample[key], key


def test_the_chart_values_hold_the_whole_config_as_a_yaml_string():
    f = fleet()
    values = kueue_config.render_kueue_values(f)
    assert list(values) == ["managerConfig"]
    assert yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"]) == kueue_config.render_manager_config(
        f
    )


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_the_managed_selector_exempts_what_kueues_config_validation_prohibits_and_every_volcano_namespace(stack):
    """Kueue v0.19.2 ``pkg/config/validation.go`` (``validateManagedJobsNamespaceSelector``) rejects a
    selector matching ``kube-system`` or Kueue's own namespace, each given as ``{kubernetes.io/metadata.name: <ns>}``."""
    model = load_model(STACKS / f"{stack}.fleet.yaml")
    selector = kueue_config.render_manager_config(model)["managedJobsNamespaceSelector"]
    for ns in ("kube-system", model.engines.kueue.namespace):
        assert not matches(selector, {"kubernetes.io/metadata.name": ns})
    for obj in render_all(model).objects:
        if obj.manifest["kind"] == "Namespace":
            labels = {
                **obj.manifest["metadata"]["labels"],
                "kubernetes.io/metadata.name": obj.manifest["metadata"]["name"],
            }
            assert matches(selector, labels) == (labels["gpufleet.dev/quota-system"] == "kueue"), obj.key
