"""The Volcano admission TLS Secret, which the chart only makes in a Helm hook.

Volcano 1.15.1's chart creates ``volcano-admission-secret`` only in the pre-install
hook Job ``templates/admission-init.yaml`` (``gen-admission-secret.sh``: a 10-year CA
and a serving certificate for ``<release>-admission-service[.<ns>[.svc]]``, keys
``tls.key``, ``tls.crt`` and ``ca.crt``). pulumi-kubernetes' ``helm.v4.Chart`` never
runs hooks (``provider/pkg/provider/helm/v4/chart.go`` sets ``cmd.DisableHooks = true``;
``includeHooks`` only matters in render-to-directory mode), and ``templates/admission.yaml`` mounts the Secret without
``optional``, so the stack creates it before the chart: from pulumi-tls material
(default) or as a cert-manager Certificate (``certManager: true``; cert-manager writes
the same three keys). The webhooks' ``caBundle`` is not the stack's business: the
admission binary reads ``--ca-cert-file`` (``ca.crt`` of this Secret) and patches
every ``volcano-admission-service-*`` webhook configuration at start-up
(``cmd/webhook-manager/app/server.go`` and ``util.go`` ``addCaCertForWebhook``,
polling up to 5 minutes for them to exist). Called by ``gpufleet/pulumi/volcano.py``.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.model.fleet import Fleet
from gpufleet.render.cert_chain import cert_manager_chain
from gpufleet.render.meta import labels

SECRET_NAME = "volcano-admission-secret"
"""The chart's ``basic.admission_secret_name`` default (values.yaml); the stack never overrides it."""
SECRET_KEYS = ("tls.key", "tls.crt", "ca.crt")
CA_VALIDITY_HOURS = 10 * 365 * 24
SERVING_VALIDITY_HOURS = 10 * 365 * 24
"""Like the hook's 3650 days: the admission binary reads its certificate once, at start-up."""


def service_name(fleet: Fleet) -> str:
    return f"{fleet.engines.volcano.release_name}-admission-service"


def dns_names(fleet: Fleet) -> list[str]:
    """The SANs gen-admission-secret.sh writes, plus the cluster-local form."""
    svc, ns = service_name(fleet), fleet.engines.volcano.namespace
    return [svc, f"{svc}.{ns}", f"{svc}.{ns}.svc", f"{svc}.{ns}.svc.cluster.local"]


def _meta(fleet: Fleet, name: str) -> dict[str, Any]:
    return {"name": name, "namespace": fleet.engines.volcano.namespace, "labels": labels(fleet)}


def admission_secret(fleet: Fleet, data: Mapping[str, Any]) -> dict[str, Any]:
    """The Secret with PEM ``data`` (``tls.key``, ``tls.crt``, ``ca.crt``) as stringData."""
    missing = [key for key in SECRET_KEYS if key not in data]
    if missing:
        raise ValueError(f"Volcano admission Secret: missing keys {missing}")
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": _meta(fleet, SECRET_NAME),
        "type": "Opaque",
        "stringData": {key: data[key] for key in SECRET_KEYS},
    }


def cert_manager_objects(fleet: Fleet) -> dict[str, dict[str, Any]]:
    """Self-signed root -> CA Certificate -> CA Issuer -> serving Certificate into SECRET_NAME."""
    return cert_manager_chain(
        "volcano-admission",
        lambda name: _meta(fleet, name),
        secret=SECRET_NAME,
        dns_names=dns_names(fleet),
        common_name=dns_names(fleet)[2],
        ca_hours=CA_VALIDITY_HOURS,
        serving_hours=SERVING_VALIDITY_HOURS,
    )
