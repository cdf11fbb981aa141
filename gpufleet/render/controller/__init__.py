"""Kubernetes manifests of the gang-admission controller (the admission webhook).

Called by ``gpufleet/pulumi/controller.py``, which creates one Pulumi resource per
manifest. Pure: settings in, plain dicts out. Values only known at deploy time (the
CA bundle made by pulumi-tls, the image digest) are passed in as opaque values and
placed where they belong, so the component needs no logic of its own.
"""

from __future__ import annotations

import json
from typing import Any

from gpufleet.model.fleet import Fleet
from gpufleet.render.context import render_context
from gpufleet.render.controller.common import (
    CONTEXT_CONFIGMAP,
    CONTEXT_KEY,
    NAME,
    PORT,
    TLS_SECRET,
    ControllerSettings,
    selector,
)
from gpufleet.render.controller.common import (
    meta as _meta,
)
from gpufleet.render.controller.tls import cert_manager_objects
from gpufleet.render.controller.webhooks import webhook_configurations
from gpufleet.render.controller.workload import deployment, pod_disruption_budget
from gpufleet.render.meta import manifest

__all__ = [
    "COMPONENT",
    "ControllerSettings",
    "render_controller",
    "NAME",
    "TLS_SECRET",
    "CONTEXT_CONFIGMAP",
    "CONTEXT_KEY",
    "PORT",
]

COMPONENT = "gang-admission"
"""The controller component's Pulumi name (``gpufleet.pulumi.fleet``): each manifest is the resource ``<COMPONENT>-<key>``."""


def namespace(fleet: Fleet) -> dict[str, Any]:
    meta = _meta(fleet, fleet.controller.namespace, namespaced=False)
    meta["labels"] = {**meta["labels"], fleet.controller.opt_out_label: "disabled"}
    return manifest("v1", "Namespace", meta)


def service_account(fleet: Fleet) -> dict[str, Any]:
    """No RBAC binding and no mounted token: the webhook calls no API."""
    return manifest("v1", "ServiceAccount", _meta(fleet), automountServiceAccountToken=False)


def context_config_map(fleet: Fleet, context: dict[str, Any] | None = None, indent: int | None = 2) -> dict[str, Any]:
    """The fleet context the webhook reads (and reloads when this ConfigMap changes); ``context`` when rendered already."""
    text = json.dumps(render_context(fleet) if context is None else context, indent=indent, sort_keys=True)
    return manifest("v1", "ConfigMap", _meta(fleet, CONTEXT_CONFIGMAP), data={CONTEXT_KEY: text})


def service(fleet: Fleet) -> dict[str, Any]:
    return manifest(
        "v1",
        "Service",
        _meta(fleet),
        spec={
            "selector": selector(),
            "type": "ClusterIP",
            "ports": [{"name": "https", "port": 443, "targetPort": "https", "protocol": "TCP"}],
        },
    )


def network_policy(fleet: Fleet) -> dict[str, Any]:
    """Only the webhook/metrics port is reachable (from the API server and Prometheus); no egress."""
    return manifest(
        "networking.k8s.io/v1",
        "NetworkPolicy",
        _meta(fleet),
        spec={
            "podSelector": {"matchLabels": selector()},
            "policyTypes": ["Ingress", "Egress"],
            "ingress": [{"ports": [{"port": PORT, "protocol": "TCP"}]}],
            # no "egress": with policyTypes Egress, no rules denies all egress; an empty list is not stored, so
            # applying one makes a second field manager's apply conflict (tests/e2e/test_takeover_e2e.py)
        },
    )


def service_monitor(fleet: Fleet) -> dict[str, Any]:
    server_name = f"{NAME}.{fleet.controller.namespace}.svc"
    return manifest(
        "monitoring.coreos.com/v1",
        "ServiceMonitor",
        _meta(fleet),
        spec={
            "selector": {"matchLabels": selector()},
            "namespaceSelector": {"matchNames": [fleet.controller.namespace]},
            "endpoints": [
                {
                    "port": "https",
                    "scheme": "https",
                    "path": "/metrics",
                    "interval": "30s",
                    "tlsConfig": {"serverName": server_name, "ca": {"secret": {"name": TLS_SECRET, "key": "ca.crt"}}},
                }
            ],
        },
    )


def render_controller(
    fleet: Fleet, settings: ControllerSettings, context: dict[str, Any] | None = None, indent: int | None = 2
) -> dict[str, dict[str, Any]]:
    """Every manifest of the controller, keyed by a stable resource name, in apply order.

    With pulumi-tls (the default) the TLS Secret is the component's, as its data
    comes from pulumi-tls resources; with cert-manager the Issuers and Certificates
    are rendered here. Empty when the controller is disabled. ``context``: the fleet's
    ``render_context`` when the caller has it (``Rendered.context``), not rendered twice;
    ``indent`` None writes it compact (the same content, 10x faster to dump: for callers that
    only compare two renderings, as ``gpufleet diff``).
    """
    if not fleet.controller.enabled:
        return {}
    out: dict[str, dict[str, Any]] = {
        "namespace": namespace(fleet),
        "serviceaccount": service_account(fleet),
        "configmap-fleet-context": context_config_map(fleet, context, indent),
        **(cert_manager_objects(fleet) if settings.cert_manager else {}),
        "deployment": deployment(fleet, settings),
        **({"poddisruptionbudget": budget} if (budget := pod_disruption_budget(fleet)) else {}),
        "service": service(fleet),
        "networkpolicy": network_policy(fleet),
    }
    out.update(webhook_configurations(fleet, settings))
    if settings.prometheus_operator:
        out["servicemonitor"] = service_monitor(fleet)
    return out


# Manifests whose pods read the TLS Secret and the context ConfigMap: created after them.
NEEDS_SECRET_AND_CONFIG = frozenset({"deployment"})

# Fail-closed webhook configurations are registered only once their backend serves:
# the Deployment (awaited until its rollout is ready) and the Service. Pulumi then
# also deletes them first on destroy, before the backend goes away.
WAITS_FOR: dict[str, tuple[str, ...]] = {
    "validatingwebhookconfiguration": ("deployment", "service"),
    "mutatingwebhookconfiguration": ("deployment", "service"),
}


def tls_secret(fleet: Fleet, data: dict[str, Any]) -> dict[str, Any]:
    """The serving certificate Secret; ``data`` holds PEM strings (tls.crt, tls.key, ca.crt) as ``stringData``."""
    return manifest("v1", "Secret", _meta(fleet, TLS_SECRET), type="kubernetes.io/tls", stringData=dict(data))
