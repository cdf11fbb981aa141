"""Readiness probes of the sandbox's processes: plain HTTP(S) GETs on 127.0.0.1.

Called by ``gpufleet.sandbox.up`` (as the ready check of :func:`gpufleet.sandbox.procs.wait_until`).
"""

from __future__ import annotations

import socket
import ssl
import urllib.request
from pathlib import Path
from typing import Callable


def _context(ca: Path | None, cert: Path | None = None, key: Path | None = None) -> ssl.SSLContext:
    if ca is None:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    else:
        ctx = ssl.create_default_context(cafile=str(ca))
    if cert is not None:
        ctx.load_cert_chain(str(cert), str(key))
    return ctx


def http_ok(
    url: str, ca: Path | None = None, cert: Path | None = None, key: Path | None = None, expect: str | None = None
) -> Callable[[], bool]:
    """A probe: GET ``url`` answers 200 (and its body contains ``expect``)."""

    def probe() -> bool:
        ctx = _context(ca, cert, key) if url.startswith("https") else None
        with urllib.request.urlopen(url, timeout=3, context=ctx) as resp:  # noqa: S310 - loopback only
            body = resp.read(4096).decode(errors="replace")
            return resp.status == 200 and (expect is None or expect in body)

    return probe


def tcp_open(port: int) -> Callable[[], bool]:
    def probe() -> bool:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return True

    return probe
