"""TLS for the controller: the serving certificate's names and the cert-manager option.

By default the component makes a CA and a serving certificate at deploy time with
pulumi-tls (no runtime RBAC, rotation by redeploying); with ``certManager: true`` the
stack instead declares a self-signed cert-manager CA, a CA Issuer and a serving
Certificate, and cert-manager injects the CA bundle into the webhook configurations.
Called by ``gpufleet.render.controller`` and ``gpufleet/pulumi/controller.py``.
"""

from __future__ import annotations

from typing import Any

from gpufleet.model.fleet import Fleet
from gpufleet.render.cert_chain import cert_manager_chain
from gpufleet.render.controller.common import NAME, TLS_SECRET, meta

CA_VALIDITY_HOURS = 10 * 365 * 24
SERVING_VALIDITY_HOURS = 365 * 24
EARLY_RENEWAL_HOURS = 30 * 24


def dns_names(fleet: Fleet) -> list[str]:
    """Every name the API server may use to reach the Service."""
    ns = fleet.controller.namespace
    return [NAME, f"{NAME}.{ns}", f"{NAME}.{ns}.svc", f"{NAME}.{ns}.svc.cluster.local"]


def cert_manager_objects(fleet: Fleet) -> dict[str, dict[str, Any]]:
    """Self-signed root -> CA Certificate -> CA Issuer -> serving Certificate (secret TLS_SECRET)."""
    return cert_manager_chain(
        NAME,
        lambda name: meta(fleet, name),
        secret=TLS_SECRET,
        dns_names=dns_names(fleet),
        ca_hours=CA_VALIDITY_HOURS,
        serving_hours=SERVING_VALIDITY_HOURS,
        renew_before_hours=EARLY_RENEWAL_HOURS,
        rotate_key=True,
    )
