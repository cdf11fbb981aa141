"""What the admission handlers read: the fleet context, its check context, limits, metrics.

Built once by the server (``gpufleet.webhook.server``) and swapped field by field
by the reloaders (``gpufleet.webhook.reload``): handlers read ``state.fleet`` and
``state.check`` once per request, so a reload never mixes two fleet contexts in
one answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpufleet.context import FleetContext
from gpufleet.rules.api import CheckContext
from gpufleet.webhook.metrics import Metrics

MAX_BODY = 3 * 1024 * 1024  # bytes; objects in etcd are at most 1.5 MiB, a review carries object and oldObject


@dataclass
class State:
    fleet_path: str = ""
    fleet: FleetContext | None = None
    check: CheckContext = field(default_factory=CheckContext)
    metrics: Metrics = field(default_factory=Metrics)
    max_body: int = MAX_BODY
    tls_loaded: bool = False
    draining: bool = False

    def use_fleet(self, fleet: FleetContext) -> None:
        self.fleet, self.check = fleet, CheckContext(fleet=fleet)

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
