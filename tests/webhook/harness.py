"""Run the real server on 127.0.0.1 (in a thread or a subprocess) and talk to it over verified HTTPS."""

from __future__ import annotations

import asyncio
import gc
import http.client
import socket
import ssl
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from gpufleet.webhook.server import Config, serve_forever

REPO = Path(__file__).resolve().parents[2]


class ServerThread:
    """``serve_forever`` in its own event loop on a daemon thread; ``stop()`` is SIGTERM's path."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = replace(cfg, host="127.0.0.1", port=0)
        self.port = 0
        self.exit_code: int | None = None
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> ServerThread:
        self._thread.start()
        if not self._ready.wait(10) or not self.port:
            raise RuntimeError(f"server did not start (exit code {self.exit_code})")
        return self

    def _run(self) -> None:
        async def main() -> int:
            self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
            return await serve_forever(self.cfg, self._stop, self._listening)

        self.exit_code = asyncio.run(main())
        self._ready.set()

    def _listening(self, port: int) -> None:
        self.port = port
        self._ready.set()

    def stop(self) -> None:
        """Stop the server, and undo its ``gc.freeze()``: the heap it froze is the test process's, and a frozen heap
        changes what the tests after it see of the collector (tests/test_gcpause.py)."""
        if self._loop and self._stop and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(15)
        gc.unfreeze()


class Client:
    """One keep-alive HTTPS connection that verifies the server against the test CA."""

    def __init__(self, port: int, ca: Path) -> None:
        self.port, self.ca = port, ca
        self.context = ssl.create_default_context(cafile=str(ca))
        self.conn: http.client.HTTPSConnection | None = None

    def _connection(self) -> http.client.HTTPSConnection:
        if self.conn is None:
            self.conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.context, timeout=10)
        return self.conn

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        conn = self._connection()
        try:
            conn.request(method, path, body=body, headers={"Content-Type": "application/json", **(headers or {})})
            response = conn.getresponse()
            data = response.read()
        except (ConnectionError, http.client.HTTPException):
            self.close()
            raise
        if response.will_close:
            self.close()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data

    def post(self, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        raw = body if isinstance(body, bytes) else orjson.dumps(body)
        status, _, data = self.request("POST", path, raw)
        return status, orjson.loads(data) if data else {}

    def get(self, path: str) -> tuple[int, str]:
        status, _, data = self.request("GET", path)
        return status, data.decode()

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def serving_serial(port: int, ca: Path) -> int:
    """The serial number of the certificate a fresh handshake gets."""
    from cryptography import x509

    context = ssl.create_default_context(cafile=str(ca))
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        with context.wrap_socket(sock, server_hostname="127.0.0.1") as tls:
            der = tls.getpeercert(binary_form=True)
    return x509.load_der_x509_certificate(der).serial_number


def start_subprocess(args: list[str]) -> subprocess.Popen[str]:
    """``python -m gpufleet.webhook ARGS`` with the repo on the path; stderr piped for the log."""
    return subprocess.Popen(
        [sys.executable, "-m", "gpufleet.webhook", *args],
        cwd=REPO,
        text=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def wait_until(predicate, timeout: float = 10.0, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample in Prometheus text output (0 when absent)."""
    from prometheus_client.parser import text_string_to_metric_families

    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return sample.value
    return 0.0
