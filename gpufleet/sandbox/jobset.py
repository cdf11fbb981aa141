"""JobSet v0.12.0 as a host process: its Configuration, CRD and webhook configurations.

- The Configuration (``config.jobset.x-k8s.io/v1alpha1``, ``api/config/v1alpha1/configuration_types.go``)
  turns leader election and internal cert management off (its certificates would name the in-cluster
  Service, not 127.0.0.1) and puts the webhook server, metrics and probes on 127.0.0.1 ports. The
  metrics server is given the sandbox's serving certificate: without ``metrics.certDir`` it reads the
  fixed ``/tmp/k8s-metrics-server/serving-certs`` (``pkg/config/config.go`` ``addTo``). With cert
  management off, ``main.go`` closes ``certsReady`` at once and ``/readyz`` answers once the webhook
  server listens, which is the probe ``gpufleet.sandbox.health`` waits for.
- The CRD is the module's ``config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml``.
- The webhook configurations are ``config/components/webhook/manifests.yaml`` with the two patches
  its kustomization applies (``patches/*-patch.yaml``: the pod webhooks select only pods labelled
  ``jobset.sigs.k8s.io/jobset-name``), each clientConfig a URL with the sandbox CA, and the names
  prefixed ``jobset-``: kubebuilder names every project's configurations
  ``mutating-webhook-configuration``/``validating-webhook-configuration``, so two operators in one
  cluster would overwrite each other's (kustomize's ``namePrefix`` does the same in JobSet's release
  manifests). JobSet's webhooks default what its controller depends on (``successPolicy``,
  ``startupPolicy``, the pods' ``restartPolicy: OnFailure``; ``pkg/webhooks/jobset_webhook.go``
  ``Default``), so they run for real, failing closed as upstream ships them.
Pure but for reading the module's files. Called by ``gpufleet.sandbox.up``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonpatch

from gpufleet.sandbox.modfiles import documents
from gpufleet.sandbox.pki import url_client

MODULE = "sigs.k8s.io/jobset@v0.12.0"
NAME_PREFIX = "jobset-"
_WEBHOOK = "config/components/webhook"
_PATCHES = {
    "MutatingWebhookConfiguration": "patches/mutating-patch.yaml",
    "ValidatingWebhookConfiguration": "patches/validating-patch.yaml",
}


def module_dir(gomodcache: Path) -> Path:
    return gomodcache / MODULE


def host_config(ports: dict[str, int], webhook_certs: Path, metrics_certs: Path, gates: dict[str, bool]) -> dict:
    """JobSet's Configuration for a host process on 127.0.0.1 (``gates``: its feature gates turned on or off)."""
    cfg: dict[str, Any] = {
        "apiVersion": "config.jobset.x-k8s.io/v1alpha1",
        "kind": "Configuration",
        "leaderElection": {"leaderElect": False},
        "internalCertManagement": {"enable": False},
        "webhook": {"host": "127.0.0.1", "port": ports["webhook"], "certDir": str(webhook_certs)},
        "metrics": {"bindAddress": f"127.0.0.1:{ports['metrics']}", "certDir": str(metrics_certs)},
        "health": {"healthProbeBindAddress": f"127.0.0.1:{ports['health']}"},
    }
    if gates:
        cfg["featureGates"] = dict(gates)
    return cfg


def crds(gomodcache: Path) -> list[dict[str, Any]]:
    return [documents(module_dir(gomodcache) / "config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml")[0]]


def webhook_configurations(gomodcache: Path, port: int, ca: bytes) -> list[dict[str, Any]]:
    """JobSet's two webhook configurations as its kustomization builds them, prefixed and called by URL."""
    base = module_dir(gomodcache) / _WEBHOOK
    out = []
    for doc in documents(base / "manifests.yaml"):
        doc = jsonpatch.apply_patch(doc, documents(base / _PATCHES[doc["kind"]])[0])
        doc["metadata"]["name"] = NAME_PREFIX + doc["metadata"]["name"]
        for hook in doc["webhooks"]:
            hook["clientConfig"] = url_client(port, hook["clientConfig"]["service"]["path"], ca)
        out.append(doc)
    return out


def argv(binary: Path, config: Path) -> list[str]:
    return [str(binary), f"--config={config}", "--zap-log-level=info"]
