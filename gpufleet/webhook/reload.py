"""Load and hot-reload the fleet context and the serving certificate from mounted files.

The server (``gpufleet.webhook.server``) calls :meth:`FleetSource.poll` and
:meth:`TlsSource.poll` every few seconds. A file counts as changed when its
(device, inode, size, mtime) changes *after following symlinks*, which catches the
kubelet's ConfigMap/Secret updates (an atomic swap of the ``..data`` symlink).

A new fleet context that does not parse is logged and counted, and the old one
stays in use. A new certificate/key pair is first loaded into a scratch
``SSLContext``; only a pair that loads there is loaded into the live context
(``load_cert_chain`` on the context the listener uses: new handshakes get it,
open connections keep theirs), so a half-written swap never breaks serving.
"""

from __future__ import annotations

import logging
import os
import ssl
import time
from datetime import timezone
from typing import Any

import orjson
from cryptography import x509

from gpufleet.context import FleetContext
from gpufleet.webhook.state import State

log = logging.getLogger("gpufleet.webhook")
Signature = tuple[int, int, int, int] | None


def signature(*paths: str) -> tuple[Signature, ...]:
    """What identifies the current content of each path (None for a missing file)."""
    out = []
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
            with open(self.path, "rb") as handle:
                data: Any = orjson.loads(handle.read())
            if not isinstance(data, dict):
                raise ValueError(f"expected a JSON object, got {type(data).__name__}")
            fleet = FleetContext.from_dict(data)
        except Exception as exc:  # noqa: BLE001 - any bad file keeps the old context
            keeping = "keeping the previous one" if self.state.fleet is not None else "not ready until it is fixed"
            log.error("fleet context %s is invalid (%s: %s); %s", self.path, type(exc).__name__, exc, keeping)
            self.state.metrics.reloaded("fleet-context", ok=False)
            return False
        self.state.use_fleet(fleet)
        self.state.metrics.reloaded("fleet-context", ok=True)
        self.state.metrics.fleet_loaded.set(time.time())
        log.info("fleet context %s loaded: fleet %r, %d teams, %d pools", self.path, fleet.fleet,
                 len(fleet.teams), len(fleet.pools))
        return True


def server_context() -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    return ctx


class TlsSource:
    """The serving certificate and key behind the listener's ``SSLContext``."""

    def __init__(self, cert: str, key: str, state: State) -> None:
        self.cert, self.key, self.state = cert, key, state
        self.context = server_context()
        self.seen: tuple[Signature, ...] | None = None

    def load(self) -> ssl.SSLContext:
        """The first load: raises ``ValueError`` naming the files when they cannot be used."""
        self.seen = signature(self.cert, self.key)
        try:
            self.context.load_cert_chain(self.cert, self.key)
        except (OSError, ssl.SSLError) as exc:
            raise ValueError(f"cannot load TLS certificate {self.cert} with key {self.key}: {exc}") from None
        self._loaded()
        return self.context

    def poll(self) -> bool:
        """Reload when either file changed and the new pair is usable; True when reloaded."""
        current = signature(self.cert, self.key)
        if current == self.seen:
            return False
        self.seen = current
        try:
            server_context().load_cert_chain(self.cert, self.key)
            self.context.load_cert_chain(self.cert, self.key)
        except (OSError, ssl.SSLError) as exc:
            log.error("TLS files %s / %s changed but do not load (%s); still serving the previous certificate",
                      self.cert, self.key, exc)
            self.state.metrics.reloaded("tls", ok=False)
            return False
        self.state.metrics.reloaded("tls", ok=True)
        self._loaded()
        return True

    def _loaded(self) -> None:
        self.state.tls_loaded = True
        try:
            with open(self.cert, "rb") as handle:
                cert = x509.load_pem_x509_certificate(handle.read())
        except (OSError, ValueError):
            return
        not_after = cert.not_valid_after_utc.astimezone(timezone.utc)
        self.state.metrics.cert_not_after.set(not_after.timestamp())
        log.info("serving certificate %s loaded: serial %x, expires %s", self.cert, cert.serial_number, not_after.isoformat())
