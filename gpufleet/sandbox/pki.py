"""The sandbox's certificates: one CA, the API server's and the webhooks' serving certificates.

Everything is signed by one CA made per sandbox (``cryptography``; ECDSA P-256), so the
API server trusts every webhook (``caBundle``) and every client trusts the API server.
Serving certificates name only ``127.0.0.1`` and ``localhost``: every webhook here is a
host process reached by URL. The admin client certificate (``O=system:masters``) is the
one identity every engine uses: the sandbox is a test cluster, not a security boundary.
Called by ``gpufleet.sandbox.up``.
"""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALIDITY = dt.timedelta(days=30)
SERVING_NAMES = ("localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc")


@dataclass(frozen=True)
class Pki:
    """Paths of the files :func:`make_pki` wrote."""

    dir: Path

    def __getattr__(self, name: str) -> Path:  # ca_crt -> dir/ca.crt, admin_key -> dir/admin.key, ...
        if name.startswith("_"):
            raise AttributeError(name)
        stem, _, ext = name.rpartition("_")
        return self.dir / f"{stem.replace('_', '-')}.{ext}"


def url_client(port: int, path: str, ca: bytes) -> dict:
    """A webhook's ``clientConfig`` for a host process: ``https://127.0.0.1:PORT<path>`` trusted by the sandbox CA."""
    return {"url": f"https://127.0.0.1:{port}{path}", "caBundle": base64.b64encode(ca).decode()}


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _name(cn: str, org: str | None = None) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, cn)]
    if org:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
    return x509.Name(attrs)


def _write_key(path: Path, key) -> None:
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    path.chmod(0o600)


def _write_cert(path: Path, cert: x509.Certificate) -> None:
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _builder(subject: x509.Name, issuer: x509.Name, public_key) -> x509.CertificateBuilder:
    now = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=5)
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(public_key)
            .serial_number(x509.random_serial_number()).not_valid_before(now).not_valid_after(now + VALIDITY))


def _leaf(ca_key, ca_cert: x509.Certificate, cn: str, org: str | None, server: bool) -> tuple:
    key = _key()
    usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
    b = (_builder(_name(cn, org), ca_cert.subject, key.public_key())
         .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
         .add_extension(x509.ExtendedKeyUsage([usage]), critical=False))
    if server:
        sans = [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))] + [x509.DNSName(n) for n in SERVING_NAMES]
        b = b.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return key, b.sign(ca_key, hashes.SHA256())


def make_pki(directory: Path) -> Pki:
    """Write ca.crt/key, serving.crt/key, admin.crt/key and the service-account key pair into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    ca_key = _key()
    ca_name = _name("gpufleet-sandbox-ca")
    ca_cert = (_builder(ca_name, ca_name, ca_key.public_key())
               .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                            content_commitment=False, key_encipherment=False, data_encipherment=False,
                                            key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
               .sign(ca_key, hashes.SHA256()))
    _write_key(directory / "ca.key", ca_key)
    _write_cert(directory / "ca.crt", ca_cert)
    for stem, cn, org, server in (("serving", "127.0.0.1", None, True), ("admin", "sandbox-admin", "system:masters", False)):
        key, cert = _leaf(ca_key, ca_cert, cn, org, server)
        _write_key(directory / f"{stem}.key", key)
        _write_cert(directory / f"{stem}.crt", cert)
    sa = rsa.generate_private_key(public_exponent=65537, key_size=2048)  # service-account tokens: RS256
    _write_key(directory / "sa.key", sa)
    (directory / "sa.pub").write_bytes(sa.public_key().public_bytes(serialization.Encoding.PEM,
                                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    return Pki(directory)
