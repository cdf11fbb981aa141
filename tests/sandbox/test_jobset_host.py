"""JobSet as a host process: loopback ports, no leader election or cert rotation, and its webhooks as its
kustomization builds them (pod webhooks limited to JobSet pods), prefixed so no other operator's overwrite them."""

from __future__ import annotations

import yaml

from gpufleet.sandbox import jobset

MANIFESTS = """\
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: mutating-webhook-configuration}
webhooks:
- name: mjobset.kb.io
  clientConfig: {service: {name: webhook-service, namespace: system, path: /mutate-jobset-x-k8s-io-v1alpha2-jobset}}
- name: mpod.kb.io
  clientConfig: {service: {name: webhook-service, namespace: system, path: /mutate--v1-pod}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: validating-webhook-configuration}
webhooks:
- name: vjobset.kb.io
  clientConfig: {service: {name: webhook-service, namespace: system, path: /validate-jobset-x-k8s-io-v1alpha2-jobset}}
- name: vpod.kb.io
  clientConfig: {service: {name: webhook-service, namespace: system, path: /validate--v1-pod}}
"""
SELECTOR = {"matchExpressions": [{"key": "jobset.sigs.k8s.io/jobset-name", "operator": "Exists"}]}


def _patch(name: str, path: str) -> str:
    hook = {
        "name": name,
        "clientConfig": {"service": {"name": "webhook-service", "namespace": "system", "path": path}},
        "objectSelector": SELECTOR,
    }
    return yaml.safe_dump([{"op": "replace", "path": "/webhooks/1", "value": hook}])


def _module(tmp_path):
    base = jobset.module_dir(tmp_path) / "config/components/webhook"
    (base / "patches").mkdir(parents=True)
    (base / "manifests.yaml").write_text(MANIFESTS)
    (base / "patches/mutating-patch.yaml").write_text(_patch("mpod.kb.io", "/mutate--v1-pod"))
    (base / "patches/validating-patch.yaml").write_text(_patch("vpod.kb.io", "/validate--v1-pod"))
    return tmp_path


def test_the_host_configuration_binds_loopback_and_turns_election_and_rotation_off(tmp_path):
    cfg = jobset.host_config({"webhook": 1, "metrics": 2, "health": 3}, tmp_path / "w", tmp_path / "m", {})
    assert cfg["leaderElection"] == {"leaderElect": False}
    assert cfg["internalCertManagement"] == {"enable": False}
    assert cfg["webhook"] == {"host": "127.0.0.1", "port": 1, "certDir": str(tmp_path / "w")}
    assert cfg["metrics"] == {"bindAddress": "127.0.0.1:2", "certDir": str(tmp_path / "m")}
    assert cfg["health"] == {"healthProbeBindAddress": "127.0.0.1:3"}
    assert "featureGates" not in cfg


def test_feature_gates_the_model_turns_on_reach_the_configuration(tmp_path):
    cfg = jobset.host_config({"webhook": 1, "metrics": 2, "health": 3}, tmp_path, tmp_path, {"RestartJob": True})
    assert cfg["featureGates"] == {"RestartJob": True}


def test_webhook_configurations_are_prefixed_called_by_url_and_patched_as_the_kustomization_does(tmp_path):
    docs = jobset.webhook_configurations(_module(tmp_path), 9443, b"ca")
    assert [d["metadata"]["name"] for d in docs] == [
        "jobset-mutating-webhook-configuration",
        "jobset-validating-webhook-configuration",
    ]
    hooks = {h["name"]: h for d in docs for h in d["webhooks"]}
    assert hooks["mpod.kb.io"]["objectSelector"] == SELECTOR and hooks["vpod.kb.io"]["objectSelector"] == SELECTOR
    assert "objectSelector" not in hooks["mjobset.kb.io"]
    assert hooks["vjobset.kb.io"]["clientConfig"]["url"] == (
        "https://127.0.0.1:9443/validate-jobset-x-k8s-io-v1alpha2-jobset"
    )
    assert all("service" not in h["clientConfig"] for h in hooks.values())
