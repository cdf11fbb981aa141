"""Shared pieces of the fleet model: the base class, names, quantities and durations.

Every model class derives from :class:`Base` (camelCase YAML keys, unknown keys
rejected, so a misspelled field is an error at its exact path instead of being
silently ignored). Called by every other module of ``gpufleet.model``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, WithJsonSchema
from pydantic.alias_generators import to_camel

from gpufleet.kubetypes import durations, quantity
from gpufleet.kubetypes.vocab import DNS_LABEL


class Base(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        frozen=True,
        use_attribute_docstrings=True,
    )


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


def parse_duration(value: Any) -> int:
    """Parse a Go duration (``10m``, ``1h30m``, ``90s``) into whole seconds.

    A bare number is refused (``coldStartBudget: 6`` was meant as 6m far more often than as 6s), except 0,
    which needs no unit (as in Go); internal defaults are whole seconds and are not validated again.
    """
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a duration (examples: {durations.EXAMPLES}, 600s)")
    if isinstance(value, (int, float)) and value:
        shown = int(value) if float(value).is_integer() else value
        raise ValueError(
            f"{shown} seconds? write {shown}m or {shown}s: a duration needs a unit (examples: {durations.EXAMPLES})"
        )
    if isinstance(value, (int, float)):
        seconds = 0
    else:
        try:
            seconds = int(durations.parse_seconds(str(value)))
        except durations.DurationError as exc:
            raise ValueError(str(exc)) from None
    if seconds < 0:
        raise ValueError(f"{value!r} is negative; durations must be zero or more")
    return seconds


Duration = Annotated[
    int,
    BeforeValidator(parse_duration),
    PlainSerializer(durations.format_seconds, return_type=str),
    WithJsonSchema({"type": ["string", "integer"], "examples": ["10m", "1h30m", "600s"]}),
]
