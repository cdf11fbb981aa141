"""gpufleet.stack.folder: ``render --out DIR`` is every object of the stack, in stage folders kustomize and Argo CD take."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from gpufleet.fleetctx.context import FleetContext
from gpufleet.render import render_all
from gpufleet.render.controller import ControllerSettings
from gpufleet.render.kueue_config import render_manager_config
from gpufleet.render.volcano import render_scheduler_conf
from gpufleet.stack.controller import admission_policies, controller_manifests
from gpufleet.stack.folder import KUSTOMIZATION, WAVE, folder_files, is_own, stream
from tests.render.builders import cohort, fleet, pool, quota, team


def _fleet(**extra):
    return fleet(
        pools=[pool("h100"), pool("a100", system="volcano")],
        cohorts=[cohort("leaf", parent="mid"), cohort("mid", parent="top"), cohort("top")],
        teams=[team("a", {"h100": quota(8), "a100": quota(8)}, cohort="leaf")],
        priorityClasses=[{"name": "gang", "value": 1}],
        **extra,
    )


def _files(f, settings=None, tls=None):
    return folder_files(f, render_all(f), settings or ControllerSettings(), tls)


def _applied(files):
    """(kind, name) of every document the root kustomization applies, in order."""
    return [(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(stream(files))]


def test_the_root_kustomization_lists_the_stage_folders_in_apply_order_and_keeps_that_order():
    files = _files(_fleet())
    root = yaml.safe_load(files[KUSTOMIZATION])
    assert root["resources"] == sorted(root["resources"])
    assert root["sortOptions"] == {"order": "fifo"}
    assert root["resources"][0] == "000-namespaces" and root["resources"][-1] == "110-webhooks"


def test_each_stage_folder_lists_its_files_and_stamps_its_number_as_the_argo_cd_sync_wave():
    files = _files(_fleet())
    for folder in yaml.safe_load(files[KUSTOMIZATION])["resources"]:
        stage = yaml.safe_load(files[f"{folder}/{KUSTOMIZATION}"])
        listed = {f"{folder}/{name}" for name in stage["resources"]}
        assert listed == {p for p in files if p.startswith(f"{folder}/") and not p.endswith(KUSTOMIZATION)}
        assert stage["commonAnnotations"] == {WAVE: str(int(folder[:3]))}


def test_parents_come_before_children_in_the_apply_order():
    applied = [
        re.sub(r"-[0-9a-f]{8}$", "", name) for kind, name in _applied(_files(_fleet())) if kind in ("Cohort", "Queue")
    ]
    assert applied == ["top", "mid", "leaf", "top", "mid", "leaf", "a"]  # parent queues carry a digest suffix


def test_the_folder_applies_every_object_the_controller_component_registers_and_the_quota_objects():
    model = _fleet(controller={"enforcement": "both"})
    applied = _applied(_files(model))
    wanted = [(m["kind"], m["metadata"]["name"]) for m in controller_manifests(model, ControllerSettings()).values()]
    wanted += [(o.manifest["kind"], o.manifest["metadata"]["name"]) for o in render_all(model).objects]
    assert sorted(applied) == sorted(wanted)
    assert len(applied) == len(set(applied))


@pytest.mark.parametrize("enforcement", ["both", "apiServer"])
def test_the_gang_rule_policies_with_their_params_and_bindings_are_in_the_folder(enforcement):
    model = _fleet(controller={"enforcement": enforcement})
    policies = [(m["kind"], m["metadata"]["name"]) for m in admission_policies(model).values()]
    kinds = {kind for kind, _ in policies}
    assert {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ConfigMap"} <= kinds
    assert set(policies) <= set(_applied(_files(model)))


def test_with_enforcement_api_server_only_the_mutating_webhook_is_written():
    kinds = [kind for kind, _ in _applied(_files(_fleet(controller={"enforcement": "apiServer"})))]
    assert "ValidatingWebhookConfiguration" not in kinds and "MutatingWebhookConfiguration" in kinds


def test_a_binding_comes_after_its_policy_and_the_params_it_reads():
    documents = list(yaml.safe_load_all(stream(_files(_fleet(controller={"enforcement": "both"})))))
    seen: set[tuple[str, str]] = set()
    bindings = 0
    for doc in documents:
        if doc["kind"] == "ValidatingAdmissionPolicyBinding":
            bindings += 1
            assert ("ValidatingAdmissionPolicy", doc["spec"]["policyName"]) in seen
            if "paramRef" in doc["spec"]:
                assert ("ConfigMap", doc["spec"]["paramRef"]["name"]) in seen
        seen.add((doc["kind"], doc["metadata"]["name"]))
    assert bindings > 2


def test_the_webhooks_come_after_the_deployment_and_service_they_call():
    kinds = [kind for kind, _ in _applied(_files(_fleet()))]
    assert kinds.index("Deployment") < kinds.index("Service") < kinds.index("ValidatingWebhookConfiguration")
    assert kinds[-2:] == ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"]


def test_without_cert_manager_or_a_key_the_folder_holds_no_secret_and_the_webhooks_no_ca_bundle():
    files = _files(_fleet())
    assert not any("PRIVATE KEY" in text for text in files.values())
    assert ("Secret", "gang-admission-controller-tls") not in _applied(files)
    hooks = [d for d in yaml.safe_load_all(stream(files)) if d["kind"].endswith("WebhookConfiguration")]
    assert hooks and all("caBundle" not in h["clientConfig"] for d in hooks for h in d["webhooks"])


def test_a_given_key_goes_in_as_the_serving_secret_and_its_ca_as_the_bundle():
    tls = {"tls.crt": "CRT", "tls.key": "-----BEGIN PRIVATE KEY-----", "ca.crt": "CA"}
    files = _files(_fleet(), ControllerSettings(ca_bundle="Q0E="), tls)
    secret = yaml.safe_load(files["095-controller-tls/000-secret-tls.yaml"])
    assert secret["stringData"] == tls
    hooks = [d for d in yaml.safe_load_all(stream(files)) if d["kind"].endswith("WebhookConfiguration")]
    assert {h["clientConfig"]["caBundle"] for d in hooks for h in d["webhooks"]} == {"Q0E="}


def test_with_cert_manager_the_chain_is_its_own_stage_and_the_webhooks_ask_for_injection():
    files = _files(_fleet(), ControllerSettings(cert_manager=True))
    tls = yaml.safe_load(files["095-controller-tls/kustomization.yaml"])["resources"]
    assert [re.sub(r"^\d{3}-", "", n) for n in tls] == [
        "issuer-selfsigned.yaml",
        "certificate-ca.yaml",
        "issuer-ca.yaml",
        "certificate-serving.yaml",
    ]
    hooks = [d for d in yaml.safe_load_all(stream(files)) if d["kind"].endswith("WebhookConfiguration")]
    assert all("cert-manager.io/inject-ca-from" in d["metadata"]["annotations"] for d in hooks)


@pytest.mark.parametrize("operator", [True, False])
def test_the_operators_alert_objects_join_the_root_only_when_the_stack_says_the_operator_is_there(operator):
    root = yaml.safe_load(_files(_fleet(), ControllerSettings(prometheus_operator=operator))[KUSTOMIZATION])
    assert ("monitoring" in root["resources"]) is operator


def test_the_engines_values_and_configmaps_sit_outside_the_apply_set():
    f = _fleet()
    files = _files(f)
    assert "engines" not in yaml.safe_load(files[KUSTOMIZATION])["resources"]
    kueue = yaml.safe_load(files["engines/configmap-kueue-manager-config.yaml"])
    assert kueue["metadata"]["namespace"] == "kueue-system"
    assert yaml.safe_load(kueue["data"]["controller_manager_config.yaml"]) == render_manager_config(f)
    volcano = yaml.safe_load(files["engines/configmap-volcano-scheduler-configmap.yaml"])
    assert yaml.safe_load(volcano["data"]["volcano-scheduler.conf"]) == render_scheduler_conf(f)
    values = yaml.safe_load(files["engines/kueue-values.yaml"])
    assert values == render_all(f).kueue_values


def test_the_context_ships_as_the_controller_configmap_and_as_plain_json_outside_the_apply_set():
    files = _files(_fleet())
    config_map = next(
        d
        for d in yaml.safe_load_all(stream(files))
        if d["metadata"]["name"] == "gang-admission-controller-fleet-context"
    )
    assert config_map["metadata"]["namespace"] == "gpufleet-system"
    assert json.loads(config_map["data"]["fleet-context.json"]) == json.loads(files["context/fleet-context.json"])
    assert FleetContext.from_dict(json.loads(files["context/fleet-context.json"])).fleet == "test"


def test_disabled_volcano_and_controller_write_nothing_for_them():
    files = _files(fleet(engines={"volcano": {"enabled": False}}, controller={"enabled": False}))
    assert not any("volcano" in name for name in files)
    applied = _applied(files)
    assert not any(kind.endswith("WebhookConfiguration") or name.startswith("gpufleet-gang") for kind, name in applied)
    assert ("Deployment", "gang-admission-controller") not in applied
    assert "context/fleet-context.json" in files


@pytest.mark.parametrize(
    ("name", "is_dir", "own"),
    [
        ("kustomization.yaml", False, True),
        ("090-admission-policies", True, True),
        ("engines", True, True),
        ("010-priorityclass-gang.yaml", False, True),  # a flat rendering of older versions
        ("notes.md", False, False),
        ("090-admission-policies", False, False),
        ("src", True, False),
    ],
)
def test_a_re_render_replaces_only_what_render_writes(name, is_dir, own):
    assert is_own(name, is_dir) is own
