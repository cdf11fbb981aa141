"""A throwaway CA and serving certificates for 127.0.0.1, made with ``cryptography``.

The test client verifies the server against the CA, as the API server does with
the webhook configuration's ``caBundle``.
"""

from __future__ import annotations

import datetime
import ipaddress
import itertools
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

_versions = itertools.count(1)


class MountedDir:
    """A directory updated like the kubelet updates ConfigMap and Secret volumes.

    Files are ``<dir>/<name> -> ..data/<name>``, ``..data -> ..<version>``; :meth:`publish`
    writes a new version directory and swaps ``..data`` atomically (a rename).
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def path(self, name: str) -> Path:
        return self.root / name

    def publish(self, files: dict[str, bytes]) -> None:
        version = self.root / f"..v{next(_versions)}"
        version.mkdir()
        for name, data in files.items():
            (version / name).write_bytes(data)
            link = self.root / name
            if not link.is_symlink():
                link.symlink_to(Path("..data") / name)
        tmp = self.root / "..data_tmp"
        tmp.symlink_to(version.name)
        os.replace(tmp, self.root / "..data")


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


@dataclass
class Pki:
    """A CA under ``root`` that publishes serving certificates as ``root/tls/tls.crt`` and ``tls.key``."""

    root: Path

    def __post_init__(self) -> None:
        self.ca_key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        self.ca_cert = (
            x509.CertificateBuilder()
            .subject_name(_name("gpufleet-test-ca"))
            .issuer_name(_name("gpufleet-test-ca"))
            .public_key(self.ca_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(self.ca_key, hashes.SHA256())
        )
        self.ca_path = self.root / "ca.crt"
        self.ca_path.write_bytes(self.ca_cert.public_bytes(serialization.Encoding.PEM))
        self.mount = MountedDir(self.root / "tls")
        self.cert_path, self.key_path = self.mount.path("tls.crt"), self.mount.path("tls.key")

    def issue(self, serial: int | None = None, hours: float = 2) -> tuple[bytes, bytes, int]:
        """A new (cert PEM, key PEM, serial) for 127.0.0.1 and localhost, valid until ``hours`` from now."""
        key = ec.generate_private_key(ec.SECP256R1())
        serial = serial or x509.random_serial_number()
        now = datetime.datetime.now(datetime.UTC)
        start = min(
            now - datetime.timedelta(minutes=5), now + datetime.timedelta(hours=hours) - datetime.timedelta(hours=1)
        )
        cert = (
            x509.CertificateBuilder()
            .subject_name(_name("gpufleet-webhook"))
            .issuer_name(self.ca_cert.subject)
            .public_key(key.public_key())
            .serial_number(serial)
            .not_valid_before(start)
            .not_valid_after(now + datetime.timedelta(hours=hours))
            .add_extension(
                x509.SubjectAlternativeName(
                    [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
                ),
                critical=False,
            )
            .sign(self.ca_key, hashes.SHA256())
        )
        return cert.public_bytes(serialization.Encoding.PEM), _pem_key(key), serial

    def install(self, serial: int | None = None) -> int:
        """Issue a pair and publish it where the server reads it (an atomic swap); returns its serial."""
        cert, key, serial = self.issue(serial)
        self.mount.publish({"tls.crt": cert, "tls.key": key})
        return serial
