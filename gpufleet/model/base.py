"""Shared pieces of the fleet model: the base class, names, quantities and durations.

Every model class derives from :class:`Base` (camelCase YAML keys, unknown keys
rejected, so a misspelled field is an error at its exact path instead of being
silently ignored). Called by every other module of ``gpufleet.model``.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, WithJsonSchema
from pydantic.alias_generators import to_camel

from gpufleet import quantity


class Base(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        frozen=True,
        use_attribute_docstrings=True,
    )


DNS_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"

# A DNS label: lowercase letters, digits and '-', at most 63 characters, starting and
# ending alphanumeric. (No description here: it would hide each field's own docstring.)
Name = Annotated[str, Field(min_length=1, max_length=63, pattern=DNS_LABEL)]


def _to_decimal(value: Any) -> Decimal:
    try:
        return quantity.parse(value, saturate=False)
    except quantity.QuantityError as exc:
        raise ValueError(str(exc)) from None


Quantity = Annotated[
    Decimal,
    BeforeValidator(_to_decimal),
    PlainSerializer(lambda d: quantity.fmt(d), return_type=str),
    WithJsonSchema({"type": ["string", "integer", "number"], "examples": ["8", "500m", "1800Gi"]}),
]

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(h|m|s|ms)")
_UNIT_SECONDS = {"h": 3600, "m": 60, "s": 1, "ms": Decimal("0.001")}


def parse_duration(value: Any) -> int:
    """Parse a Go duration (``10m``, ``1h30m``, ``90s``) or a number of seconds into whole seconds."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a duration (examples: 10m, 1h30m, 600s)")
    if isinstance(value, int):
        seconds = value
    else:
        text = str(value).strip()
        parts = _DURATION_PART.findall(text)
        if not text or "".join(n + u for n, u in parts) != text:
            raise ValueError(f"{value!r} is not a duration (examples: 10m, 1h30m, 600s)")
        seconds = int(sum(Decimal(n) * Decimal(_UNIT_SECONDS[u]) for n, u in parts))
    if seconds < 0:
        raise ValueError(f"{value!r} is negative; durations must be zero or more")
    return seconds


def format_duration(seconds: int) -> str:
    """Go's canonical ``time.Duration`` string: ``10m0s``, ``1h0m0s``, ``45s``."""
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"


Duration = Annotated[
    int,
    BeforeValidator(parse_duration),
    PlainSerializer(format_duration, return_type=str),
    WithJsonSchema({"type": ["string", "integer"], "examples": ["10m", "1h30m", "600s"]}),
]
