"""Prometheus metrics of the admission controller, in a registry of its own.

Each server (and each test) gets a fresh :class:`Metrics`, so two servers in one
process never share counters. ``/metrics`` renders :meth:`Metrics.render`.

- ``gpufleet_admission_requests_total{endpoint,result}``: result is allowed,
  warned, patched, denied, error (an internal error), invalid (HTTP 400/404),
  unavailable (HTTP 503 before the fleet context loads) or overloaded (HTTP 429 over
  ``--max-inflight-bytes``, 503 when the review worker's queue is full or the review's
  deadline passed).
- ``gpufleet_admission_denials_total{code}``: one per blocking finding (GANG001...).
- ``gpufleet_admission_duration_seconds{endpoint}``: time inside the handler
  pipeline, buckets from 0.25 ms to 2.5 s.
- ``gpufleet_reloads_total{source,result}``: fleet-context and TLS reloads.
- ``gpufleet_connections_refused_total``: connections closed at once over ``--max-connections``.
- ``gpufleet_fleet_context_loaded_timestamp_seconds``, ``gpufleet_tls_certificate_not_after_seconds``.
- ``gpufleet_inflight_bytes``, ``gpufleet_worker_pending``: request-body bytes in flight and
  reviews waiting for or in the worker process, read when scraped (:meth:`Metrics.track`).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

BUCKETS = (0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
CONTENT_TYPE = CONTENT_TYPE_LATEST


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "gpufleet_admission_requests",
            "Admission calls by endpoint and result.",
            ["endpoint", "result"],
            registry=self.registry,
        )
        self.denials = Counter(
            "gpufleet_admission_denials",
            "Blocking findings in denied admission calls, by rule code.",
            ["code"],
            registry=self.registry,
        )
        self.duration = Histogram(
            "gpufleet_admission_duration_seconds",
            "Time to answer one admission call.",
            ["endpoint"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.reloads = Counter(
            "gpufleet_reloads",
            "Reloads of the fleet context and TLS files, by result.",
            ["source", "result"],
            registry=self.registry,
        )
        self.fleet_loaded = Gauge(
            "gpufleet_fleet_context_loaded_timestamp_seconds",
            "When the fleet context in use was loaded.",
            registry=self.registry,
        )
        self.cert_not_after = Gauge(
            "gpufleet_tls_certificate_not_after_seconds",
            "Expiry of the serving certificate in use (Unix time).",
            registry=self.registry,
        )
        self.connections_refused = Counter(
            "gpufleet_connections_refused",
            "Connections closed at once because --max-connections were open.",
            registry=self.registry,
        )
        self.inflight_bytes = Gauge(
            "gpufleet_inflight_bytes", "Request-body bytes reserved by calls in flight.", registry=self.registry
        )
        self.worker_pending = Gauge(
            "gpufleet_worker_pending", "Reviews waiting for or in the review worker process.", registry=self.registry
        )
        self._children: dict[tuple[str, str], tuple[Counter, Histogram]] = {}

    def track(self, inflight_bytes: Callable[[], float], worker: Any) -> None:
        """Read the bytes in flight and the worker's queue when scraped, not on every call."""
        self.inflight_bytes.set_function(inflight_bytes)
        self.worker_pending.set_function(lambda: worker.pending if worker is not None else 0)

    def observe(self, endpoint: str, result: str, seconds: float) -> None:
        children = self._children.get((endpoint, result))
        if children is None:
            children = (self.requests.labels(endpoint, result), self.duration.labels(endpoint))
            self._children[(endpoint, result)] = children
        children[0].inc()
        children[1].observe(seconds)

    def count_denials(self, codes: Iterable[str]) -> None:
        for code in codes:
            self.denials.labels(code).inc()

    def reloaded(self, source: str, ok: bool) -> None:
        self.reloads.labels(source, "ok" if ok else "failed").inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
