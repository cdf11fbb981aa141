"""Quota amounts as the renderers write them: canonical quantity strings.

The amounts themselves come from :mod:`gpufleet.model.scaling` (one owner of the quota
arithmetic, shared with the model's checks); this module only formats them. Called by the
Kueue, Volcano and fleet-context renderers.
"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal
from functools import lru_cache

from gpufleet.kubetypes import quantity

_BINARY = ("memory", "ephemeral-storage")


def is_binary(resource: str) -> bool:
    """Byte-valued resources, written in binary units (``1920Gi``)."""
    return resource in _BINARY or resource.startswith("hugepages-")


@lru_cache(maxsize=4096)
def fmt(resource: str, value: Decimal) -> str:
    """Canonical quantity string; bytes are whole bytes (rounded down) in binary units."""
    if is_binary(resource):
        return quantity.fmt(value.to_integral_value(rounding=ROUND_FLOOR), binary=True)
    return quantity.fmt(value)
