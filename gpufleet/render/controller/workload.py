"""The controller's Deployment and PodDisruptionBudget, hardened by default.

Three replicas spread across nodes, a PDB keeping all but one of them up during drains
(none with one replica: ``minAvailable: 1`` of one pod would block every node drain),
non-root, read-only root filesystem, seccomp RuntimeDefault, every capability
dropped, CPU and memory requests, a memory limit but no CPU limit (CFS throttling is
what makes webhooks miss their 3 s timeout: docs/webhook.md), and probes on the
server's own health endpoints. Called by ``gpufleet.render.controller``.
"""

from __future__ import annotations

from typing import Any

from gpufleet.kubetypes.vocab import HOSTNAME_LABEL, ZONE_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.render.controller.common import (
    CONTEXT_CONFIGMAP,
    CONTEXT_KEY,
    PORT,
    TLS_SECRET,
    ControllerSettings,
    labels,
    meta,
    selector,
)

TLS_DIR = "/etc/gpufleet/tls"
CONTEXT_DIR = "/etc/gpufleet/fleet"


def _probe(path: str, period: int, failures: int) -> dict[str, Any]:
    return {
        "httpGet": {"path": path, "port": "https", "scheme": "HTTPS"},
        "periodSeconds": period,
        "timeoutSeconds": 2,
        "failureThreshold": failures,
    }


def _container(settings: ControllerSettings) -> dict[str, Any]:
    return {
        "name": "webhook",
        "image": settings.image_ref,
        "imagePullPolicy": "IfNotPresent",
        "args": [
            f"--port={PORT}",
            f"--cert={TLS_DIR}/tls.crt",
            f"--key={TLS_DIR}/tls.key",
            f"--fleet-context={CONTEXT_DIR}/{CONTEXT_KEY}",
        ],
        "ports": [{"name": "https", "containerPort": PORT, "protocol": "TCP"}],
        "resources": {
            "requests": {"cpu": "200m", "memory": "128Mi"},
            "limits": {"memory": "256Mi"},  # no CPU limit: throttling, not use, is what times webhooks out
        },
        "readinessProbe": _probe("/readyz", 5, 3),
        "livenessProbe": _probe("/healthz", 10, 3),
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": 65532,
            "runAsGroup": 65532,
            "readOnlyRootFilesystem": True,
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "volumeMounts": [
            {"name": "tls", "mountPath": TLS_DIR, "readOnly": True},
            {"name": "fleet-context", "mountPath": CONTEXT_DIR, "readOnly": True},
        ],
    }


def _anti_affinity() -> dict[str, Any]:
    """Prefer one replica per node and per zone; required would block small clusters."""

    def term(key: str, weight: int) -> dict[str, Any]:
        return {"weight": weight, "podAffinityTerm": {"topologyKey": key, "labelSelector": {"matchLabels": selector()}}}

    return {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                term(HOSTNAME_LABEL, 100),
                term(ZONE_LABEL, 50),
            ]
        }
    }


def deployment(fleet: Fleet, settings: ControllerSettings) -> dict[str, Any]:
    pod_spec = {
        "serviceAccountName": meta(fleet)["name"],
        "automountServiceAccountToken": False,
        "priorityClassName": "system-cluster-critical",
        "terminationGracePeriodSeconds": 30,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": 65532,
            "runAsGroup": 65532,
            "fsGroup": 65532,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "affinity": _anti_affinity(),
        "containers": [_container(settings)],
        "volumes": [
            {"name": "tls", "secret": {"secretName": TLS_SECRET, "defaultMode": 0o440}},
            {"name": "fleet-context", "configMap": {"name": CONTEXT_CONFIGMAP, "defaultMode": 0o440}},
        ],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta(fleet),
        "spec": {
            "replicas": fleet.controller.replicas,
            "selector": {"matchLabels": selector()},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 1}},
            "template": {"metadata": {"labels": labels(fleet)}, "spec": pod_spec},
        },
    }


def pod_disruption_budget(fleet: Fleet) -> dict[str, Any] | None:
    """Keep all but one replica up through voluntary disruptions; None with one replica.

    A budget of one pod that must stay available would refuse every eviction of it, so
    no node holding it could ever be drained; one replica accepts that outage instead.
    """
    if fleet.controller.replicas < 2:
        return None
    min_available = fleet.controller.replicas - 1
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": meta(fleet),
        "spec": {"minAvailable": min_available, "selector": {"matchLabels": selector()}},
    }
