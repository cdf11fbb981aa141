"""The sandbox's certificates: two CAs, the API server's, etcd's and the webhooks' serving certificates.

Everything but etcd's pair (below) is signed by one CA made per sandbox (``cryptography``; ECDSA
P-256), so the API server trusts every webhook (``caBundle``) and every client trusts the API server.
Serving certificates name only ``127.0.0.1`` and ``localhost``: every webhook here is a
host process reached by URL. The admin client certificate (``O=system:masters``) is the
one identity every engine uses. etcd has a CA of its own (``etcd-ca``, as kubeadm does), serves
its client and peer ports over TLS and requires a client certificate of that CA: ``etcd.crt``
serves both and is etcd's peer identity, ``apiserver-etcd-client.crt`` is the API server's (and
the ready probe's) client identity, so no other engine's certificate opens etcd.
Private keys are created 0600 (``os.open`` with the mode, never widened by a later chmod)
in folders made 0700 (:func:`private_dir`, :func:`write_private`). Called by
``gpufleet.sandbox.up``.
"""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def private_dir(path: Path) -> Path:
    """``path`` as a folder only its owner may enter (0700), made so before anything goes in (parents as they are)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)  # one that existed already: tightened while still empty of new keys
    return path


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to a file only its owner may read (0600): created with that mode, so no reader gets in first."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as out:
        os.fchmod(fd, 0o600)  # a file that existed keeps its mode through O_CREAT: tightened before it is written
        out.write(data)


def _write_key(path: Path, key) -> None:
    write_private(
        path,
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
    )


def _write_cert(path: Path, cert: x509.Certificate) -> None:
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _builder(subject: x509.Name, issuer: x509.Name, public_key) -> x509.CertificateBuilder:
    now = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + VALIDITY)
    )


SERVER, CLIENT = ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH
CAS = (("ca", "gpufleet-sandbox-ca"), ("etcd-ca", "gpufleet-sandbox-etcd-ca"))
LEAVES = (  # file stem, the CA that signs it, common name, organization, extended key usages
    ("serving", "ca", "127.0.0.1", None, (SERVER,)),
    ("admin", "ca", "sandbox-admin", "system:masters", (CLIENT,)),
    ("etcd", "etcd-ca", "etcd", None, (SERVER, CLIENT)),  # client and peer server; client of its own peer port
    ("apiserver-etcd-client", "etcd-ca", "kube-apiserver-etcd-client", None, (CLIENT,)),
)
"""etcd trusts only its own CA (as kubeadm does): the admin identity every engine holds does not open etcd."""


def _leaf(ca_key: Any, ca_cert: x509.Certificate, cn: str, org: str | None, usages: tuple[Any, ...]) -> tuple[Any, Any]:
    key = _key()
    b = (
        _builder(_name(cn, org), ca_cert.subject, key.public_key())
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage(list(usages)), critical=False)
    )
    if SERVER in usages:
        sans = [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))] + [x509.DNSName(n) for n in SERVING_NAMES]
        b = b.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return key, b.sign(ca_key, hashes.SHA256())


def _ca(cn: str) -> tuple[Any, x509.Certificate]:
    key, name = _key(), _name(cn)
    cert = (
        _builder(name, name, key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    return key, cert


def make_pki(directory: Path) -> Pki:
    """Write the :data:`CAS`' and :data:`LEAVES`' .crt/.key and the service-account key pair into ``directory`` (0700)."""
    private_dir(directory)
    cas = {stem: _ca(cn) for stem, cn in CAS}
    for stem, (key, cert) in cas.items():
        _write_key(directory / f"{stem}.key", key)
        _write_cert(directory / f"{stem}.crt", cert)
    for stem, ca, cn, org, usages in LEAVES:
        key, cert = _leaf(*cas[ca], cn, org, usages)
        _write_key(directory / f"{stem}.key", key)
        _write_cert(directory / f"{stem}.crt", cert)
    sa = rsa.generate_private_key(public_exponent=65537, key_size=2048)  # service-account tokens: RS256
    _write_key(directory / "sa.key", sa)
    (directory / "sa.pub").write_bytes(
        sa.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    return Pki(directory)
