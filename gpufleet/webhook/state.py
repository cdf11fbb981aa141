"""What the admission handlers read: the fleet context, its check context, limits, metrics.

Built once by the server (``gpufleet.webhook.server``) and swapped field by field
by the reloaders (``gpufleet.webhook.reload``): handlers read ``state.fleet`` and
``state.check`` once per request, so a reload never mixes two fleet contexts in
one answer. ``crds`` are the CRD schemas in force for the schema rules (GANG601, GANG602):
the ones gpufleet carries (``gpufleet.settings.load_crds``), read on the first object of
their kind. ``closing`` is resolved when shutdown closes the listener: requests
still receiving their body are then answered 503 (``gpufleet.webhook.app``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from gpufleet.fleetctx.context import FleetContext
from gpufleet.rules.api import CheckContext, CrdSchemas
from gpufleet.settings import load_crds
from gpufleet.webhook.budget import Budget
from gpufleet.webhook.metrics import Metrics

MAX_BODY = 3 * 1024 * 1024  # bytes; objects in etcd are at most 1.5 MiB, a review carries object and oldObject
INLINE_BYTES = 16 * 1024  # larger reviews are checked in the worker process, off the event loop
INLINE_CONFIG_BYTES = 2 * 1024  # so are larger ConfigMaps (their embedded YAML costs ~2 ms per KiB to parse)
MAX_INFLIGHT = 32 * 1024 * 1024  # bytes of request bodies in flight at once (gpufleet.webhook.budget)
REVIEW_DEADLINE = 2.5  # seconds from a call's headers to its answer; the rendered webhooks time out at 3 s


@dataclass
class State:
    fleet_path: str = ""
    fleet: FleetContext | None = None
    check: CheckContext = field(default_factory=CheckContext)
    crds: CrdSchemas | None = field(default_factory=load_crds)
    metrics: Metrics = field(default_factory=Metrics)
    max_body: int = MAX_BODY
    body_timeout: float = 10.0
    budget: Budget = field(default_factory=lambda: Budget(MAX_INFLIGHT))
    review_deadline: float = REVIEW_DEADLINE
    inline_bytes: int = INLINE_BYTES
    inline_config_bytes: int = INLINE_CONFIG_BYTES
    tls_loaded: bool = False
    draining: bool = False
    fleet_generation: int = 0  # counts fleet contexts used, so the worker process knows when to take a new one
    worker: Any = None  # gpufleet.webhook.worker.Worker once the server starts; without one, every review is inline
    ignore_rules: frozenset[str] | None = None  # rules /validate skips: --bench-ignore, a benchmark's ablation only
    _closing: asyncio.Future[None] | None = None

    @property
    def closing(self) -> asyncio.Future[None]:
        if self._closing is None:
            self._closing = asyncio.get_running_loop().create_future()
        return self._closing

    def close(self) -> None:
        """Refuse the requests still receiving a body (called when the listener closes)."""
        if not self.closing.done():
            self.closing.set_result(None)

    def use_fleet(self, fleet: FleetContext) -> None:
        self.fleet, self.check = fleet, CheckContext(fleet=fleet, crds=self.crds)
        self.fleet_generation += 1

    @property
    def ready(self) -> bool:
        return self.fleet is not None and self.tls_loaded and not self.draining

    def not_ready_reasons(self) -> list[str]:
        reasons = []
        if self.fleet is None:
            reasons.append(f"fleet context {self.fleet_path or '(no path)'} not loaded")
        if not self.tls_loaded:
            reasons.append("TLS certificate not loaded")
        if self.draining:
            reasons.append("shutting down")
        return reasons
