"""Kueue v0.19.2 as a host process: its Configuration, CRDs and webhook configurations.

- The Configuration is the one the stack renders (``gpufleet.render.kueue_config``:
  integrations, ``manageJobsWithoutQueueName``, ``managedJobsNamespaceSelector``,
  ``waitForPodsReady``), with only what a host process needs changed: leader election
  off, internal cert management off (its certificates name the in-cluster Service,
  not 127.0.0.1), the webhook server, metrics and probes on 127.0.0.1 ports.
- CRDs are the module's ``config/components/crd/bases`` with the conversion webhook of
  ``crd/patches/webhook_in_*.yaml`` pointed at ``https://127.0.0.1:PORT/convert``.
- Webhook configurations are the module's ``config/components/webhook/manifests.yaml``
  with what the chart (``charts/kueue/templates/webhook/manifests.yaml``, v0.19.2) does to
  them: every job-integration webhook gets the manager's ``managedJobsNamespaceSelector``
  (else ``NotIn [kube-system, <kueue namespace>]``), the deployment/pod/statefulset
  webhooks fail closed only when that integration is enabled, and each clientConfig is a
  URL with the sandbox CA, as Kueue's envtest framework does (``pkg/util/testing``).
With internal cert management off, ``cmd/kueue/main.go`` reads the metrics certificate
from the fixed path ``/etc/kueue/metrics/certs``: :func:`argv` runs Kueue in its own
mount namespace with the sandbox's certificate bound there, and with the visibility
server off (:data:`FEATURE_GATES`). Pure but for reading the
module's files (parsed once: ``gpufleet.sandbox.modfiles``). Called by ``gpufleet.sandbox.up``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gpufleet.kubetypes.vocab import NAMESPACE_NAME_LABEL
from gpufleet.sandbox.modfiles import documents
from gpufleet.sandbox.pki import url_client

MODULE = "sigs.k8s.io/kueue@v0.19.2"
CONVERTED = ("clusterqueues", "cohorts", "localqueues", "workloads", "multikueueclusters")
METRICS_CERT_DIR = "/etc/kueue/metrics/certs"
FEATURE_GATES = "VisibilityOnDemand=false"
"""The on-demand visibility API server (on by default) reads certificates from the fixed path
``/visibility`` and listens on every interface (``pkg/visibility/server.go``); the sandbox
registers no APIService for it, so it is off."""
OPTIONAL_FRAMEWORKS = {
    "mdeployment.kb.io": "deployment",
    "vdeployment.kb.io": "deployment",
    "mpod.kb.io": "pod",
    "vpod.kb.io": "pod",
    "mstatefulset.kb.io": "statefulset",
    "vstatefulset.kb.io": "statefulset",
    "mleaderworkerset.kb.io": "leaderworkerset.x-k8s.io/leaderworkerset",
    "vleaderworkerset.kb.io": "leaderworkerset.x-k8s.io/leaderworkerset",
}


def module_dir(gomodcache: Path) -> Path:
    return gomodcache / MODULE


def host_config(
    rendered: str, ports: dict[str, int], cert_dir: Path, pods_ready_timeout: str | None = None
) -> dict[str, Any]:
    """The rendered manager Configuration, made to run as a host process on 127.0.0.1."""
    cfg = yaml.safe_load(rendered)
    cfg["leaderElection"] = {"leaderElect": False}
    cfg["internalCertManagement"] = {"enable": False}
    cfg["webhook"] = {"host": "127.0.0.1", "port": ports["webhook"], "certDir": str(cert_dir)}
    cfg["metrics"] = {**cfg.get("metrics", {}), "bindAddress": f"127.0.0.1:{ports['metrics']}"}
    cfg["health"] = {**cfg.get("health", {}), "healthProbeBindAddress": f"127.0.0.1:{ports['health']}"}
    if pods_ready_timeout and "waitForPodsReady" in cfg:
        cfg["waitForPodsReady"]["timeout"] = pods_ready_timeout
        cfg["waitForPodsReady"]["recoveryTimeout"] = pods_ready_timeout
    return cfg


def crds(gomodcache: Path, port: int, ca: bytes) -> list[dict[str, Any]]:
    out = []
    for path in sorted((module_dir(gomodcache) / "config/components/crd/bases").glob("*.yaml")):
        crd = documents(path)[0]
        if crd["spec"]["names"]["plural"] in CONVERTED:
            crd["spec"]["conversion"] = {
                "strategy": "Webhook",
                "webhook": {"clientConfig": url_client(port, "/convert", ca), "conversionReviewVersions": ["v1"]},
            }
        out.append(crd)
    return out


def _integration_hook(hook: dict[str, Any]) -> bool:
    return all("kueue.x-k8s.io" not in rule.get("apiGroups", []) for rule in hook.get("rules", []))


def webhook_configurations(gomodcache: Path, manager: dict[str, Any], port: int, ca: bytes) -> list[dict[str, Any]]:
    """Kueue's two webhook configurations as the chart renders them, called by URL."""
    frameworks = set(manager.get("integrations", {}).get("frameworks", []))
    selector = manager.get("managedJobsNamespaceSelector") or {
        "matchExpressions": [
            {"key": NAMESPACE_NAME_LABEL, "operator": "NotIn", "values": ["kube-system", manager["namespace"]]}
        ]
    }
    out = []
    for doc in documents(module_dir(gomodcache) / "config/components/webhook/manifests.yaml"):
        for hook in doc["webhooks"]:
            hook["clientConfig"] = url_client(port, hook["clientConfig"]["service"]["path"], ca)
            if _integration_hook(hook):
                hook["namespaceSelector"] = selector
            if hook["name"] in OPTIONAL_FRAMEWORKS:
                hook["failurePolicy"] = "Fail" if OPTIONAL_FRAMEWORKS[hook["name"]] in frameworks else "Ignore"
        out.append(doc)
    return out


UNSHARE = ["unshare", "--mount", "--propagation", "private"]
"""The private mount namespace Kueue runs in (:func:`argv`); ``gpufleet.sandbox.needs`` probes it before ``up``."""


def argv(binary: Path, config: Path, metrics_certs: Path) -> list[str]:
    """Kueue in a private mount namespace, with ``metrics_certs`` bound at the fixed path it reads."""
    script = (
        f'mkdir -p {METRICS_CERT_DIR} && mount --bind "$1" {METRICS_CERT_DIR} && '
        f'exec "$2" --config="$3" --feature-gates={FEATURE_GATES}'
    )
    return [*UNSHARE, "sh", "-c", script, "kueue", str(metrics_certs), str(binary), str(config)]
