"""One cert-manager CA chain for an admission webhook's serving certificate.

Called by :mod:`gpufleet.render.controller.tls` (the gang-admission controller) and
:mod:`gpufleet.render.volcano_admission` (Volcano's admission Secret): a self-signed
root Issuer, a CA Certificate, a CA Issuer and the serving Certificate written into
``secret``. Plain dicts out; the callers supply their metadata and serving options.
"""

from __future__ import annotations

from typing import Any, Callable

CA_KEY = {"algorithm": "ECDSA", "size": 256}
USAGES = ["digital signature", "key encipherment", "server auth"]


def cert_manager_chain(
    base: str,
    metadata: Callable[[str], dict[str, Any]],
    *,
    secret: str,
    dns_names: list[str],
    ca_hours: int,
    serving_hours: int,
    common_name: str | None = None,
    renew_before_hours: int | None = None,
    rotate_key: bool = False,
) -> dict[str, dict[str, Any]]:
    """``issuer-selfsigned``, ``certificate-ca``, ``issuer-ca`` and ``certificate-serving``, named after ``base``."""

    def cm(kind: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
        return {"apiVersion": "cert-manager.io/v1", "kind": kind, "metadata": metadata(name), "spec": spec}

    serving: dict[str, Any] = {"secretName": secret}
    if common_name is not None:
        serving["commonName"] = common_name
    serving.update({"dnsNames": dns_names, "duration": f"{serving_hours}h"})
    if renew_before_hours is not None:
        serving["renewBefore"] = f"{renew_before_hours}h"
    serving["privateKey"] = {**CA_KEY, **({"rotationPolicy": "Always"} if rotate_key else {})}
    serving.update(
        {"usages": list(USAGES), "issuerRef": {"name": f"{base}-ca", "kind": "Issuer", "group": "cert-manager.io"}}
    )
    return {
        "issuer-selfsigned": cm("Issuer", f"{base}-selfsigned", {"selfSigned": {}}),
        "certificate-ca": cm(
            "Certificate",
            f"{base}-ca",
            {
                "isCA": True,
                "commonName": f"{base}-ca",
                "secretName": f"{base}-ca",
                "duration": f"{ca_hours}h",
                "privateKey": dict(CA_KEY),
                "issuerRef": {"name": f"{base}-selfsigned", "kind": "Issuer", "group": "cert-manager.io"},
            },
        ),
        "issuer-ca": cm("Issuer", f"{base}-ca", {"ca": {"secretName": f"{base}-ca"}}),
        "certificate-serving": cm("Certificate", base, serving),
    }
