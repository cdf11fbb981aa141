"""``gpufleet render --include-private-key``: a CA and the controller's serving certificate, made on this machine.

Called by :func:`gpufleet.cli.fleet_cmds.render` only when asked: the folder then holds the serving Secret
(``tls.crt``, ``tls.key``, ``ca.crt``) and the webhooks' ``caBundle``, so it applies as it stands (a sandbox, a
throwaway cluster). Without the flag no key is ever written (docs/gitops.md: the Secret to create, or
cert-manager). The same shape the Pulumi stack makes with pulumi-tls (ECDSA P-256, a CA valid ten years, a
serving certificate for the Service's DNS names valid one year: :mod:`gpufleet.render.controller.tls`).
"""

from __future__ import annotations

import base64
import datetime as dt

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from gpufleet.model import Fleet
from gpufleet.render.controller.common import NAME
from gpufleet.render.controller.tls import CA_VALIDITY_HOURS, SERVING_VALIDITY_HOURS, dns_names


def _name(common: str) -> x509.Name:
    return x509.Name(
        [x509.NameAttribute(NameOID.COMMON_NAME, common), x509.NameAttribute(NameOID.ORGANIZATION_NAME, "gpufleet")]
    )


def _pem(cert: x509.Certificate) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def serving_tls(fleet: Fleet) -> tuple[dict[str, str], str]:
    """The Secret's PEMs and the base64 CA bundle for the webhooks."""
    now = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name(f"{NAME}-ca")
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + dt.timedelta(hours=CA_VALIDITY_HOURS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True
        )  # digital signature, cert and CRL signing
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    names = dns_names(fleet)
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(names[2]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + dt.timedelta(hours=SERVING_VALIDITY_HOURS))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in names]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    ca_pem = _pem(ca)
    return {"tls.crt": _pem(cert), "tls.key": key_pem, "ca.crt": ca_pem}, base64.b64encode(ca_pem.encode()).decode()
