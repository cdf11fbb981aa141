"""A kube-state-metrics stand-in for the end-to-end alert test: serves the exact v2.20.0 exposition of given objects.

Each replica is one HTTP server on 127.0.0.1 whose ``/metrics`` is
:func:`tests.render.ksm.exposition` of what ``objects(now)`` returns at scrape time (so a
pod "starts" when the test says, and two replicas can disagree). It answers in the text
format 0.0.4, what kube-state-metrics serves unless OpenMetrics is negotiated
(``pkg/metricshandler/metrics_handler.go``; the samples are the same in both).
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Mapping, Sequence

from tests.render import ksm

Objects = Callable[[float], Sequence["ksm.Pod | ksm.Node"]]
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class KubeStateMetrics(ThreadingHTTPServer):
    """One replica; ``start()`` serves in a daemon thread, ``stop()`` shuts it down."""

    daemon_threads = True

    def __init__(self, port: int, objects: Objects, allow: Mapping[str, Sequence[str]]) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                body = ksm.exposition(objects(time.time()), allow).encode()
                self.send_response(200)
                self.send_header("Content-Type", CONTENT_TYPE)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                return

        super().__init__(("127.0.0.1", port), Handler)

    def start(self) -> KubeStateMetrics:
        threading.Thread(target=self.serve_forever, name="ksm-standin", daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
