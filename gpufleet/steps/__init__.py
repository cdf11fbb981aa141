"""``gpufleet.steps``: the training step counter the gang alerts read. One call per step.

Training code calls :func:`start` first thing, then :func:`report_step` after every
completed step::

    from gpufleet import steps
    steps.start()                     # serve from process start: step 0 until the first step
    for step, batch in enumerate(loader, start=1):
        ...
        steps.report_step(step)

:func:`start` (or, without it, the first :func:`report_step`) starts a small HTTP server
(port ``GPUFLEET_STEPS_PORT``, default 9477; bind address ``GPUFLEET_STEPS_HOST``,
default every interface) serving, in Prometheus' text format, ``gpufleet_training_step``
(the last completed step, 0 before the first) and
``gpufleet_training_step_timestamp_seconds`` (when it completed, 0 before the first).
Serving from the start keeps the pod's scrape target up through data loading and
rendezvous, and on a rank that never reaches step 1 (which is what GangNoFirstStep is
for), so generic target-down alerts stay quiet.
The PodMonitor gpufleet renders scrapes it and adds ``namespace`` and ``gang``; the
alerts GangNoFirstStep and GangStepStalled read it (docs/observability.md).

Safe from every rank: only the process with local rank 0 (``LOCAL_RANK``,
``OMPI_COMM_WORLD_LOCAL_RANK``, ``MPI_LOCALRANKID`` or ``SLURM_LOCALID``; 0 when none
is set) serves; on other ranks :func:`report_step` only stores the value. A port
already taken (another process of the pod serves) is logged once and never stops
training. Calling it from rank 0 only works the same.

Import-light on purpose: the standard library only (no Pulumi, pydantic, aiohttp or
prometheus_client), so a training image installs it alone (``pip install ./steps``:
the ``gpufleet-steps`` distribution in this repository). Nothing else in gpufleet
imports it.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["DEFAULT_PORT", "Reporter", "local_rank", "report_step", "reporter", "start"]

DEFAULT_PORT = 9477
PORT_ENV = "GPUFLEET_STEPS_PORT"
HOST_ENV = "GPUFLEET_STEPS_HOST"
LOCAL_RANK_ENVS = ("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID")
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_log = logging.getLogger(__name__)


def local_rank(environ: dict[str, str] | None = None) -> int:
    """This process' rank within its pod (0 when no launcher variable is set or it is not a number)."""
    env = os.environ if environ is None else environ
    for name in LOCAL_RANK_ENVS:
        value = env.get(name, "").strip()
        if value:
            return int(value) if value.isdigit() else 0
    return 0


def exposition(step: int, timestamp: float) -> bytes:
    """The two gauges in Prometheus' text exposition format 0.0.4."""
    return (
        "# HELP gpufleet_training_step The last completed training step.\n"
        "# TYPE gpufleet_training_step gauge\n"
        f"gpufleet_training_step {step}\n"
        "# HELP gpufleet_training_step_timestamp_seconds Unix time at which the last training step completed (0: none yet).\n"
        "# TYPE gpufleet_training_step_timestamp_seconds gauge\n"
        f"gpufleet_training_step_timestamp_seconds {timestamp!r}\n"
    ).encode()


class Reporter:
    """Holds the last step; serves it when ``serve`` (default: local rank 0)."""

    def __init__(self, port: int | None = None, host: str | None = None, serve: bool | None = None) -> None:
        self.port = int(os.environ.get(PORT_ENV, DEFAULT_PORT)) if port is None else port
        self.host = os.environ.get(HOST_ENV, "") if host is None else host
        self.serve = local_rank() == 0 if serve is None else serve
        self.last: tuple[int, float] = (0, 0.0)
        self._server: ThreadingHTTPServer | None = None
        self._lock = threading.Lock()

    def report_step(self, step: int) -> None:
        """Record that ``step`` just completed (one tuple assignment; the first call also starts serving)."""
        self.last = (int(step), time.time())
        if self.serve and self._server is None:
            self.start()

    def start(self) -> Reporter:
        """Start serving now (idempotent); a taken port is logged, not raised."""
        with self._lock:
            if self._server is not None or not self.serve:
                return self
            try:
                self._server = ThreadingHTTPServer((self.host, self.port), _handler(self))
            except OSError as exc:
                self.serve = False
                _log.warning(
                    "gpufleet.steps: not serving on port %s (%s); another process of this pod may serve", self.port, exc
                )
                return self
            self.port = self._server.server_address[1]
            self._server.daemon_threads = True
            threading.Thread(target=self._server.serve_forever, name="gpufleet-steps", daemon=True).start()
        return self

    def stop(self) -> None:
        with self._lock:
            if self._server is not None:
                self._server.shutdown()
                self._server.server_close()
                self._server = None


def _handler(owner: Reporter) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if self.path.split("?", 1)[0] not in ("/metrics", "/"):
                self.send_error(404)
                return
            body = exposition(*owner.last)
            self.send_response(200)
            self.send_header("Content-Type", CONTENT_TYPE)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # scrapes every few seconds: stay quiet
            return

    return Handler


_default: Reporter | None = None


def reporter() -> Reporter:
    """The process-wide reporter :func:`report_step` uses (created on first use)."""
    global _default
    if _default is None:
        _default = Reporter()
    return _default


def start() -> Reporter:
    """Serve now, before the first step (step 0), on local rank 0; idempotent. Call it at process start."""
    return reporter().start()


def report_step(step: int) -> None:
    """Record that training step ``step`` completed. Call once per step, from every rank or rank 0 only."""
    (_default or reporter()).report_step(step)
