"""Lookups derived once per fleet and shared by the renderers (speed only, same results).

A 1,000-team fleet asks "which of this team's pools are Kueue pools" thousands of
times; :func:`index` builds the answers once per Fleet object (the model is frozen, so
they cannot go stale) and keeps only the last fleet. Called by ``gpufleet.render.tree``
and ``gpufleet.render.resources``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpufleet.model.fleet import Fleet


@dataclass
class FleetIndex:
    fleet: Fleet
    pools_by_system: dict[str, tuple[str, ...]]
    quota_cache: dict[tuple[int, str], dict[str, Any]] = field(default_factory=dict)
    memo: dict[Any, Any] = field(default_factory=dict)


_last: FleetIndex | None = None


def index(fleet: Fleet) -> FleetIndex:
    """The index of this fleet (rebuilt when another fleet object comes in)."""
    global _last
    current = _last
    if current is None or current.fleet is not fleet:
        systems: dict[str, list[str]] = {}
        for pool in fleet.pools:
            systems.setdefault(pool.system, []).append(pool.name)
        current = FleetIndex(fleet, {k: tuple(v) for k, v in systems.items()})
        _last = current
    return current
