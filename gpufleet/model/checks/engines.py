"""Engine versions and switches.

gpufleet renders Kueue ``v1beta2`` objects and configuration for the 0.19 line and
Volcano queues and scheduler conf for the 1.15 line; other chart versions have other
fields, defaults and webhooks. Volcano pools need Volcano installed. Registered in ``CHECKS``.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.checks.shapes import every
from gpufleet.model.fleet import Fleet
from gpufleet.yamlin.errors import Issue

SUPPORTED = {"kueue": ("0.19", "0.19.2"), "volcano": ("1.15", "1.15.1")}


def _versions(fleet: Fleet) -> Iterator[Issue]:
    for engine, (line, pin) in SUPPORTED.items():
        version = getattr(fleet.engines, engine).chart_version
        if not re.fullmatch(re.escape(line) + r"\.\d+", version):
            yield Issue(
                FieldPath.of("engines", engine, "chartVersion"),
                f"{engine} chart {version!r} is not supported: gpufleet renders for {line}.x",
                f"pin chartVersion: {pin}",
            )


def _volcano_off(fleet: Fleet) -> Iterator[Issue]:
    if fleet.engines.volcano.enabled:
        return
    for i, pool in enumerate(fleet.pools):
        if pool.system == "volcano":
            yield Issue(
                FieldPath.of("pools", i, "system"),
                f"pool {pool.name!r} is held by Volcano but engines.volcano.enabled is false",
                "set engines.volcano.enabled: true, or system: kueue",
            )


def check(fleet: Fleet) -> Iterable[Issue]:
    return every(fleet, _versions, _volcano_off)
