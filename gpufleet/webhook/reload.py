"""Load and hot-reload the fleet context and the serving certificate from mounted files.

The server (``gpufleet.webhook.server``) calls :meth:`FleetSource.poll` and
:meth:`TlsSource.poll` every few seconds. A file counts as changed when its
(device, inode, size, mtime) changes *after following symlinks*, which catches the
kubelet's ConfigMap/Secret updates (an atomic swap of the ``..data`` symlink).

A new fleet context is read by :func:`gpufleet.settings.load_settings` (``strict``: it
must match :mod:`gpufleet.fleetctx.contextschema`); one that does not parse or does not match is logged at WARNING and counted, and the old one
stays in use. A new certificate/key pair is read and checked together (the key
belongs to the certificate, the validity window holds, the chain leads to ``--ca``
when one is configured) and loaded into a fresh ``SSLContext``; only then do new
handshakes get it (through the listener's SNI callback; open connections keep
theirs). A failure is logged at WARNING and counted
(``gpufleet_reloads_total{source="tls",result="failed"}``); files that change while
being read are retried at the next poll, so a half-written swap never breaks serving.
"""

from __future__ import annotations

import logging
import os
import ssl
import time
from datetime import UTC, datetime
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization

from gpufleet.settings import load_settings
from gpufleet.webhook.state import State
from gpufleet.yamlin.errors import ModelError

log = logging.getLogger("gpufleet.webhook")
Signature = tuple[int, int, int, int] | None
_SPKI = (serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def signature(*paths: str) -> tuple[Signature, ...]:
    """What identifies the current content of each path (None for a missing file)."""
    out: list[Signature] = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            out.append(None)
            continue
        out.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(out)


class FleetSource:
    """The fleet-context JSON file (``render_context`` output) behind ``state.fleet``."""

    def __init__(self, path: str, state: State) -> None:
        self.path, self.state = path, state
        self.seen: tuple[Signature, ...] | None = None
        state.fleet_path = path

    def poll(self) -> bool:
        """Load the file if it changed since the last attempt; True when a new context is in use."""
        current = signature(self.path)
        if current == self.seen:
            return False
        self.seen = current
        try:
            fleet = load_settings(context=self.path, strict=True).fleet
        except Exception as exc:  # noqa: BLE001 - any bad file keeps the old context
            keeping = "keeping the previous one" if self.state.fleet is not None else "not ready until it is fixed"
            log.warning(
                "fleet context %s is invalid (%s: %s); %s", self.path, type(exc).__name__, _summary(exc), keeping
            )
            self.state.metrics.reloaded("fleet-context", ok=False)
            return False
        if fleet is None:  # never: a context path was given
            return False
        self.state.use_fleet(fleet)
        self.state.metrics.reloaded("fleet-context", ok=True)
        self.state.metrics.fleet_loaded.set(time.time())
        log.info(
            "fleet context %s loaded: fleet %r, %d teams, %d pools",
            self.path,
            fleet.fleet,
            len(fleet.teams),
            len(fleet.pools),
        )
        return True


def _summary(exc: Exception) -> str:
    issues = exc.issues if isinstance(exc, ModelError) else ()
    if not issues:
        return str(exc)[:1000]
    more = f" (and {len(issues) - 3} more)" if len(issues) > 3 else ""
    return ("; ".join(f"{i.path}: {i.message}" for i in issues[:3]) + more)[:1000]


def server_context() -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3  # no CBC suites; the API server's Go client speaks 1.3
    return ctx


def check_pair(cert_pem: bytes, key_pem: bytes, ca_pem: bytes | None, now: datetime | None = None) -> x509.Certificate:
    """The leaf certificate when the pair is usable, else ``ValueError`` saying why.

    Checks that the key belongs to the certificate, that ``now`` is inside the
    certificate's validity window, and (with ``ca_pem``) that the chain in the
    certificate file leads to one of the CA certificates.
    """
    try:
        chain = x509.load_pem_x509_certificates(cert_pem)
    except ValueError as exc:
        raise ValueError(f"the certificate file is not PEM certificates ({exc})") from None
    try:
        key = serialization.load_pem_private_key(key_pem, password=None)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"the key file is not an unencrypted PEM private key ({exc})") from None
    leaf = chain[0]
    if leaf.public_key().public_bytes(*_SPKI) != key.public_key().public_bytes(*_SPKI):
        raise ValueError("the key does not belong to the certificate (a half-updated Secret?)")
    now = now or datetime.now(UTC)
    if now < leaf.not_valid_before_utc:
        raise ValueError(f"the certificate is not valid before {leaf.not_valid_before_utc.isoformat()}")
    if now > leaf.not_valid_after_utc:
        raise ValueError(f"the certificate expired on {leaf.not_valid_after_utc.isoformat()}")
    if ca_pem is not None:
        _check_chain(chain, x509.load_pem_x509_certificates(ca_pem))
    return leaf


def _issued_by(cert: x509.Certificate, issuer: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(issuer)
    except (ValueError, TypeError, InvalidSignature):
        return False
    return True


def _check_chain(chain: list[x509.Certificate], anchors: list[x509.Certificate]) -> None:
    for i, cert in enumerate(chain):
        if any(_issued_by(cert, ca) for ca in anchors):
            return
        if i + 1 >= len(chain) or not _issued_by(cert, chain[i + 1]):
            break
    raise ValueError(
        "the certificate does not chain to the configured CA (--ca): it would be refused by the API server"
    )


class TlsSource:
    """The serving certificate and key behind the listener.

    The listener's ``SSLContext`` has an SNI callback (called on every handshake, with or
    without SNI) that hands the handshake to :attr:`current`, a context built and checked
    from scratch on every reload; the live one is only replaced by a complete, checked
    pair, so a reload can never leave a certificate without its key.
    """

    def __init__(self, cert: str, key: str, state: State, ca: str = "") -> None:
        self.cert, self.key, self.ca, self.state = cert, key, ca, state
        self.context = server_context()
        self.current = self.context
        self.context.sni_callback = self._handshake
        self.seen: tuple[Signature, ...] | None = None

    def _handshake(self, sock: ssl.SSLObject, name: str | None, ctx: ssl.SSLContext) -> None:
        if self.current is not ctx:
            sock.context = self.current

    def _paths(self) -> tuple[str, ...]:
        return (self.cert, self.key, self.ca) if self.ca else (self.cert, self.key)

    def _build(self) -> tuple[ssl.SSLContext, x509.Certificate]:
        """A new context from the files, checked; ``ValueError`` naming the problem."""
        try:
            with open(self.cert, "rb") as c, open(self.key, "rb") as k:
                cert_pem, key_pem = c.read(), k.read()
            ca_pem = Path(self.ca).read_bytes() if self.ca else None
        except OSError as exc:
            raise ValueError(f"cannot read {exc.filename}: {exc.strerror}") from None
        leaf = check_pair(cert_pem, key_pem, ca_pem)
        ctx = server_context()
        try:
            ctx.load_cert_chain(self.cert, self.key)
        except (OSError, ssl.SSLError) as exc:
            raise ValueError(f"OpenSSL refuses the pair: {exc}") from None
        try:  # the pair OpenSSL loaded must be the pair that was checked
            again = check_pair(Path(self.cert).read_bytes(), Path(self.key).read_bytes(), ca_pem)
        except OSError as exc:
            raise ValueError(f"cannot read {exc.filename}: {exc.strerror}") from None
        if again.serial_number != leaf.serial_number:
            raise ValueError("the files changed while they were loaded")
        return ctx, leaf

    def load(self) -> ssl.SSLContext:
        """The first load: raises ``ValueError`` naming the files when they cannot be used."""
        self.seen = signature(*self._paths())
        try:
            self.current, leaf = self._build()
            self.context.load_cert_chain(self.cert, self.key)
        except (ValueError, OSError, ssl.SSLError) as exc:
            raise ValueError(f"cannot use TLS certificate {self.cert} with key {self.key}: {exc}") from None
        self._loaded(leaf)
        return self.context

    def poll(self) -> bool:
        """Reload when a file changed and the new pair passes every check; True when reloaded."""
        current = signature(*self._paths())
        if current == self.seen:
            return False
        try:
            ctx, leaf = self._build()
        except ValueError as exc:
            if signature(*self._paths()) == current:  # stable files: report once; changing files: retry next poll
                self.seen = current
                log.warning(
                    "TLS files %s / %s changed but cannot be used (%s); still serving the previous certificate",
                    self.cert,
                    self.key,
                    exc,
                )
                self.state.metrics.reloaded("tls", ok=False)
            return False
        self.seen = current
        self.current = ctx
        self.state.metrics.reloaded("tls", ok=True)
        self._loaded(leaf)
        return True

    def _loaded(self, cert: x509.Certificate) -> None:
        self.state.tls_loaded = True
        not_after = cert.not_valid_after_utc.astimezone(UTC)
        self.state.metrics.cert_not_after.set(not_after.timestamp())
        log.info(
            "serving certificate %s loaded: serial %x, expires %s", self.cert, cert.serial_number, not_after.isoformat()
        )
