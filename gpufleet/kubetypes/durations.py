"""Go durations: the one parser, the one formatter and the cold-start floor.

Kueue reads ``waitForPodsReady.timeout`` (and every other duration of its
Configuration) with Go's ``time.ParseDuration`` (through ``metav1.Duration``), so the
fleet model (``gpufleet.model.base.Duration``), the Kueue config renderer and the
platform rules (GANG502) all parse and print durations here, the way Go does:

- :func:`parse_nanoseconds` follows ``time.ParseDuration`` (``src/time/format.go``):
  an optional sign, then one or more ``<decimal><unit>`` with the units ``ns``,
  ``us``/``µs``/``μs``, ``ms``, ``s``, ``m``, ``h``; ``"0"`` alone needs no unit;
  the value must fit an int64 of nanoseconds. Not emulated: Go's float rounding of
  fractions with more than about 18 significant digits (here they truncate exactly).
- :func:`format_seconds` is ``time.Duration.String``: ``10m0s``, ``1h0m0s``,
  ``45s``, ``1.5s``, ``300ms``, ``0s`` — what ``kubectl get`` shows and what the
  rendered Kueue Configuration holds.

:data:`COLD_START_FLOOR_SECONDS` is the default cold-start floor (``admission.coldStartFloor``,
the fleet context's ``coldStartFloorSeconds``, GANG502 without a fleet). Imported by the
model, the context, the rules; standard library only.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Iterable, NamedTuple

COLD_START_FLOOR_SECONDS = 600
"""Ten minutes: the default floor under which a GPU gang's cold start is not safe (docs/model.md)."""

NANOSECONDS = {
    "ns": 1,
    "us": 10**3,
    "µs": 10**3,
    "μs": 10**3,
    "ms": 10**6,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3600 * 10**9,
}
_MAX_NS = 2**63 - 1
_PART = re.compile(r"([0-9]*)(?:\.([0-9]*))?([^0-9.]*)")
EXAMPLES = "10m, 1h30m, 90s"


class DurationError(ValueError):
    """Text that Go's ``time.ParseDuration`` refuses; the message says why and shows examples."""


def parse_nanoseconds(text: str) -> int:
    """Nanoseconds of a Go duration string; :class:`DurationError` when Go would refuse it."""
    if not isinstance(text, str):
        raise DurationError(f"{text!r} is not a Go duration string (examples: {EXAMPLES})")
    body, negative = text, False
    if body[:1] in ("-", "+"):
        negative, body = body[0] == "-", body[1:]
    if body == "0":
        return 0
    if not body:
        raise DurationError(f"{text!r} is not a Go duration (examples: {EXAMPLES})")
    total, pos = Fraction(0), 0
    while pos < len(body):
        match = _PART.match(body, pos)
        whole, frac, unit = match.group(1), match.group(2), match.group(3)  # type: ignore[union-attr]  # _PART matches at every position: all its groups are optional
        if not whole and not frac:
            raise DurationError(
                f"{text!r} is not a Go duration: a number must come before each unit (examples: {EXAMPLES})"
            )
        if unit not in NANOSECONDS:
            what = f"unknown unit {unit!r}" if unit else "missing unit"
            raise DurationError(
                f"{text!r} is not a Go duration: {what} (use ns, us, ms, s, m or h; examples: {EXAMPLES})"
            )
        total += Fraction(f"{whole or 0}.{frac or 0}") * NANOSECONDS[unit]
        pos = match.end()  # type: ignore[union-attr]  # as above: _PART always matches
    nanos = int(total)
    if nanos > _MAX_NS + (1 if negative else 0):
        raise DurationError(f"{text!r} is out of range: Go durations stop at about 2562047h")
    return -nanos if negative else nanos


def parse_seconds(text: str) -> float:
    """Seconds of a Go duration string (``"1h30m"`` -> ``5400.0``); :class:`DurationError` when invalid."""
    return parse_nanoseconds(text) / 10**9


def seconds_or_none(value: object) -> float | None:
    """Seconds of a Go duration, or None when ``value`` is not one (for rules that report it themselves)."""
    try:
        return parse_seconds(value)  # type: ignore[arg-type]  # not a str: parse_nanoseconds raises DurationError, caught below
    except DurationError:
        return None


def _fraction(value: int, digits: int) -> str:
    """``value`` with ``digits`` decimals, trailing zeros (and a bare point) dropped."""
    whole, rest = divmod(value, 10**digits)
    frac = f"{rest:0{digits}d}".rstrip("0") if digits else ""
    return f"{whole}.{frac}" if frac else str(whole)


def format_nanoseconds(nanos: int) -> str:
    """Go's ``time.Duration.String`` of ``nanos``."""
    sign, u = ("-", -nanos) if nanos < 0 else ("", nanos)
    if u == 0:
        return "0s"
    if u < 10**9:
        for unit, digits in (("ms", 6), ("µs", 3), ("ns", 0)):
            if u >= 10**digits or unit == "ns":
                return f"{sign}{_fraction(u, digits)}{unit}"
    hours, rest = divmod(u, 3600 * 10**9)
    minutes, rest = divmod(rest, 60 * 10**9)
    seconds = _fraction(rest, 9) + "s"
    if hours:
        return f"{sign}{hours}h{minutes}m{seconds}"
    if minutes:
        return f"{sign}{minutes}m{seconds}"
    return sign + seconds


def format_seconds(seconds: float | int) -> str:
    """Go's ``time.Duration.String`` of ``seconds``: ``600`` -> ``10m0s``, ``0.3`` -> ``300ms``."""
    return format_nanoseconds(round(Fraction(seconds) * 10**9))


class Shortfall(NamedTuple):
    """A cold-start requirement a ``waitForPodsReady.timeout`` does not meet.

    ``pool`` is None for the fleet's cold-start floor, else (index, name) of the pool
    whose ``coldStartBudget`` is ``seconds``.
    """

    seconds: int
    pool: tuple[int, str] | None = None


def timeout_shortfalls(timeout: float, floor: int, budgets: Iterable[tuple[int, str, int | None]]) -> list[Shortfall]:
    """Every cold-start requirement above ``timeout``: the floor, then each pool's budget in order.

    ``budgets`` are (pool index, pool name, coldStartBudget seconds or None). The model
    check (``gpufleet.model.checks.admission``) and GANG502 both call this, so they agree
    on which timeouts evict gangs that are still starting.
    """
    out = [Shortfall(floor)] if timeout < floor else []
    out += [Shortfall(budget, (i, name)) for i, name, budget in budgets if budget is not None and timeout < budget]
    return out
