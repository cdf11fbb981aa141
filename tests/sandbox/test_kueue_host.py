"""Kueue as a host process: the stack's Configuration with only the host's needs changed, and
its webhooks as the chart renders them, called by URL."""

from __future__ import annotations

import yaml

from gpufleet.render.kueue_config import render_manager_config_yaml
from gpufleet.sandbox import kueue
from tests.render.builders import fleet, pool, quota, team

MANIFESTS = """\
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: mutating-webhook-configuration}
webhooks:
- name: mpod.kb.io
  clientConfig: {service: {name: webhook-service, namespace: system, path: /mutate--v1-pod}}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
- name: mdeployment.kb.io
  clientConfig: {service: {name: webhook-service, namespace: system, path: /mutate-apps-v1-deployment}}
  rules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
- name: mclusterqueue.kb.io
  clientConfig: {service: {name: webhook-service, namespace: system, path: /mutate-kueue-x-k8s-io-v1beta2-clusterqueue}}
  rules: [{apiGroups: [kueue.x-k8s.io], apiVersions: [v1beta2], operations: [CREATE], resources: [clusterqueues]}]
"""


def _module(tmp_path):
    base = kueue.module_dir(tmp_path) / "config/components/webhook"
    base.mkdir(parents=True)
    (base / "manifests.yaml").write_text(MANIFESTS)
    return tmp_path


def _manager():
    return yaml.safe_load(
        render_manager_config_yaml(fleet(pools=[pool("l4", nodes=2)], teams=[team("alpha", {"l4": quota(8)})]))
    )


def test_the_host_configuration_keeps_the_stacks_admission_settings_and_binds_loopback(tmp_path):
    manager = _manager()
    cfg = kueue.host_config(yaml.safe_dump(manager), {"webhook": 1, "metrics": 2, "health": 3}, tmp_path)
    assert cfg["waitForPodsReady"] == manager["waitForPodsReady"]
    assert cfg["integrations"] == manager["integrations"]
    assert cfg["managedJobsNamespaceSelector"] == manager["managedJobsNamespaceSelector"]
    assert cfg["leaderElection"] == {"leaderElect": False}
    assert cfg["internalCertManagement"] == {"enable": False}
    assert cfg["webhook"] == {"host": "127.0.0.1", "port": 1, "certDir": str(tmp_path)}
    assert cfg["metrics"]["bindAddress"] == "127.0.0.1:2"
    assert cfg["health"]["healthProbeBindAddress"] == "127.0.0.1:3"


def test_a_test_may_lower_the_pods_ready_timeout_and_nothing_else(tmp_path):
    manager = _manager()
    cfg = kueue.host_config(yaml.safe_dump(manager), {"webhook": 1, "metrics": 2, "health": 3}, tmp_path, "20s")
    assert cfg["waitForPodsReady"]["timeout"] == "20s"
    assert cfg["waitForPodsReady"]["requeuingStrategy"] == manager["waitForPodsReady"]["requeuingStrategy"]


def test_job_integration_webhooks_get_the_managed_namespace_selector_and_kueues_own_do_not(tmp_path):
    manager = _manager()
    [config] = kueue.webhook_configurations(_module(tmp_path), manager, 9443, b"CA")
    hooks = {h["name"]: h for h in config["webhooks"]}
    assert hooks["mpod.kb.io"]["namespaceSelector"] == manager["managedJobsNamespaceSelector"]
    assert "namespaceSelector" not in hooks["mclusterqueue.kb.io"]


def test_every_webhook_is_called_by_url_on_loopback_with_the_sandbox_ca(tmp_path):
    [config] = kueue.webhook_configurations(_module(tmp_path), _manager(), 9443, b"CA")
    for hook in config["webhooks"]:
        assert hook["clientConfig"]["url"].startswith("https://127.0.0.1:9443/")
        assert hook["clientConfig"]["caBundle"] == "Q0E="
        assert "service" not in hook["clientConfig"]


def test_optional_integration_webhooks_fail_closed_only_when_the_integration_is_enabled(tmp_path):
    manager = _manager()
    assert "pod" in manager["integrations"]["frameworks"] and "deployment" not in manager["integrations"]["frameworks"]
    [config] = kueue.webhook_configurations(_module(tmp_path), manager, 9443, b"CA")
    hooks = {h["name"]: h for h in config["webhooks"]}
    assert hooks["mpod.kb.io"]["failurePolicy"] == "Fail"
    assert hooks["mdeployment.kb.io"]["failurePolicy"] == "Ignore"
