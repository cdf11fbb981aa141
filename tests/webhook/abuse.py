"""Hostile clients for the adversarial tests and the abuse benchmark: stalled TLS connections and gpu-heavy jobs."""

from __future__ import annotations

import socket
import ssl
from pathlib import Path
from typing import Any

from tests.mutate.builders import safe_volcano_job


def gpu_job(gpus: Any, replicas: int = 2, **kw: Any) -> dict[str, Any]:
    """A gang-safe Volcano Job whose every pod asks for ``gpus`` GPUs (as limit)."""
    job = safe_volcano_job(replicas, **kw)
    for task in job["spec"]["tasks"]:
        task["template"]["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": gpus}}
    return job


def tls_socket(port: int, ca: Path, timeout: float = 10.0) -> ssl.SSLSocket:
    """A connection that finished its TLS handshake and has sent nothing yet."""
    context = ssl.create_default_context(cafile=str(ca))
    raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    return context.wrap_socket(raw, server_hostname="127.0.0.1")


def closed_by_server(sock: ssl.SSLSocket, within: float) -> bool:
    """True when the server closes ``sock`` (EOF or reset) within ``within`` seconds."""
    sock.settimeout(within)
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
            if b"HTTP/1.1" in data and b"Connection: close" in data:
                continue
    except (ConnectionError, ssl.SSLError):
        return True
    except TimeoutError:
        return False


def read_response(sock: ssl.SSLSocket, timeout: float = 10.0) -> bytes:
    sock.settimeout(timeout)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except (ConnectionError, ssl.SSLError):
        pass
    return data
