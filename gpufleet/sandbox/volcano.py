"""Volcano (v1.14.1: see ``MODULE``) as host processes: CRDs, webhook configurations and command lines.

The CRDs, the webhook configurations and the admission list are read from the module's
rendered install manifest ``installer/volcano-development.yaml`` (the chart's default
``custom.enabled_admissions``, the same list). vc-webhook-manager does not create its
webhook configurations: for each enabled path it waits for one of the fixed name
``volcano-admission-service-<path>`` and patches its caBundle
(``cmd/webhook-manager/app/util.go`` ``addCaCertForWebhook``), so the sandbox creates
them first, called by URL with the sandbox CA (which it also passes as
``--ca-cert-file``, so the patch is a no-op). The scheduler's ``volcano-scheduler.conf``
is the one the stack renders (``gpufleet.render.volcano``). Pure but for reading the
module's files (parsed once: ``gpufleet.sandbox.modfiles``). Called by ``gpufleet.sandbox.up``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpufleet.sandbox.modfiles import documents
from gpufleet.sandbox.pki import url_client

MODULE = "volcano.sh/volcano@v1.14.1"
"""The Volcano the sandbox runs (sandbox/engines/volcano/go.mod says why not v1.15.1)."""
INSTALL = "installer/volcano-development.yaml"
PREFIX = "volcano-admission-service"


def _docs(gomodcache: Path) -> list[dict[str, Any]]:
    return documents(gomodcache / MODULE / INSTALL)


def crds(gomodcache: Path) -> list[dict[str, Any]]:
    return [d for d in _docs(gomodcache) if d["kind"] == "CustomResourceDefinition"]


def enabled_admission(gomodcache: Path, without: tuple[str, ...] = ()) -> str:
    for d in _docs(gomodcache):
        if d["kind"] == "Deployment" and d["metadata"]["name"] == "volcano-admission":
            for arg in d["spec"]["template"]["spec"]["containers"][0]["args"]:
                if arg.startswith("--enabled-admission="):
                    return ",".join(p for p in arg.split("=", 1)[1].split(",") if p not in without)
    raise ValueError(f"{MODULE}/{INSTALL}: no --enabled-admission in the volcano-admission Deployment")


def config_maps(gomodcache: Path, namespace: str) -> list[dict[str, Any]]:
    """The controller and sharding ConfigMaps the controller-manager reads (the scheduler's conf is rendered)."""
    keep = ("volcano-controller-configmap", "volcano-sharding-configmap", "volcano-admission-configmap")
    out = []
    for d in _docs(gomodcache):
        if d["kind"] == "ConfigMap" and d["metadata"]["name"] in keep:
            d["metadata"] = {"name": d["metadata"]["name"], "namespace": namespace}
            out.append(d)
    return out


def webhook_configurations(
    gomodcache: Path, port: int, ca: bytes, without: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    skipped = {PREFIX + path.replace("/", "-") for path in without}
    out = []
    for d in _docs(gomodcache):
        if (
            d["kind"] not in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
            or d["metadata"]["name"] in skipped
        ):
            continue
        d["metadata"] = {"name": d["metadata"]["name"]}
        for hook in d["webhooks"]:
            path = hook["clientConfig"]["service"]["path"]
            hook["clientConfig"] = url_client(port, path, ca)
        out.append(d)
    return out


def scheduler_argv(binary: Path, kubeconfig: Path, conf: Path, ports: dict[str, int]) -> list[str]:
    return [
        str(binary),
        f"--kubeconfig={kubeconfig}",
        f"--scheduler-conf={conf}",
        "--leader-elect=false",
        "--enable-healthz=true",
        f"--healthz-address=127.0.0.1:{ports['scheduler_healthz']}",
        "--enable-metrics=true",
        f"--listen-address=127.0.0.1:{ports['scheduler_metrics']}",
        "--schedule-period=1s",
        "--logtostderr",
        "-v=3",
    ]


def controller_argv(binary: Path, kubeconfig: Path, namespace: str, ports: dict[str, int]) -> list[str]:
    return [
        str(binary),
        f"--kubeconfig={kubeconfig}",
        "--leader-elect=false",
        "--enable-healthz=true",
        f"--healthz-address=127.0.0.1:{ports['controller_healthz']}",
        "--enable-metrics=true",
        f"--listen-address=127.0.0.1:{ports['controller_metrics']}",
        "--logtostderr",
        "-v=3",
    ]


def webhook_argv(
    binary: Path, kubeconfig: Path, pki: Any, admission: str, namespace: str, ports: dict[str, int]
) -> list[str]:
    return [
        str(binary),
        f"--kubeconfig={kubeconfig}",
        f"--enabled-admission={admission}",
        f"--tls-cert-file={pki.serving_crt}",
        f"--tls-private-key-file={pki.serving_key}",
        f"--ca-cert-file={pki.ca_crt}",
        "--listen-address=127.0.0.1",
        f"--port={ports['webhook']}",
        f"--webhook-url=https://127.0.0.1:{ports['webhook']}",
        f"--webhook-namespace={namespace}",
        f"--webhook-service-name={PREFIX}",
        "--enable-healthz=true",
        f"--healthz-address=127.0.0.1:{ports['webhook_healthz']}",
        "--logtostderr",
        "-v=3",
    ]
