"""TLS for the controller: the serving certificate's names and the cert-manager option.

By default the component makes a CA and a serving certificate at deploy time with
pulumi-tls (no runtime RBAC, rotation by redeploying); with ``certManager: true`` the
stack instead declares a self-signed cert-manager CA, a CA Issuer and a serving
Certificate, and cert-manager injects the CA bundle into the webhook configurations.
Called by ``gpufleet.render.controller`` and ``components/controller.py``.
"""

from __future__ import annotations

from typing import Any

from gpufleet.model.fleet import Fleet
from gpufleet.render.controller_common import NAME, TLS_SECRET, meta

CA_VALIDITY_HOURS = 10 * 365 * 24
SERVING_VALIDITY_HOURS = 365 * 24
EARLY_RENEWAL_HOURS = 30 * 24


def dns_names(fleet: Fleet) -> list[str]:
    """Every name the API server may use to reach the Service."""
    ns = fleet.controller.namespace
    return [NAME, f"{NAME}.{ns}", f"{NAME}.{ns}.svc", f"{NAME}.{ns}.svc.cluster.local"]


def cert_manager_objects(fleet: Fleet) -> dict[str, dict[str, Any]]:
    """Self-signed root -> CA Certificate -> CA Issuer -> serving Certificate (secret TLS_SECRET)."""
    def cm(kind: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
        return {"apiVersion": "cert-manager.io/v1", "kind": kind, "metadata": meta(fleet, name), "spec": spec}

    return {
        "issuer-selfsigned": cm("Issuer", f"{NAME}-selfsigned", {"selfSigned": {}}),
        "certificate-ca": cm("Certificate", f"{NAME}-ca", {
            "isCA": True, "commonName": f"{NAME}-ca", "secretName": f"{NAME}-ca",
            "duration": f"{CA_VALIDITY_HOURS}h", "privateKey": {"algorithm": "ECDSA", "size": 256},
            "issuerRef": {"name": f"{NAME}-selfsigned", "kind": "Issuer", "group": "cert-manager.io"},
        }),
        "issuer-ca": cm("Issuer", f"{NAME}-ca", {"ca": {"secretName": f"{NAME}-ca"}}),
        "certificate-serving": cm("Certificate", NAME, {
            "secretName": TLS_SECRET, "dnsNames": dns_names(fleet),
            "duration": f"{SERVING_VALIDITY_HOURS}h", "renewBefore": f"{EARLY_RENEWAL_HOURS}h",
            "privateKey": {"algorithm": "ECDSA", "size": 256, "rotationPolicy": "Always"},
            "usages": ["digital signature", "key encipherment", "server auth"],
            "issuerRef": {"name": f"{NAME}-ca", "kind": "Issuer", "group": "cert-manager.io"},
        }),
    }
