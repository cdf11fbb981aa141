"""Kubernetes quantities (``8``, ``500m``, ``1800Gi``) for the model, renderers and rules.

Parsing is done by the official Kubernetes Python client
(``kubernetes.utils.quantity.parse_quantity``). That module depends only on
:mod:`decimal`, but importing it through the ``kubernetes`` package would first
import the whole API client (about half a second), so it is loaded by file from the
installed package. Formatting writes the canonical form the API server would keep,
so rendered quantities never show a permanent diff.

Bounded work. The client does decimal arithmetic on whatever it is given, so
``1e999999`` becomes a million-digit integer as soon as anyone formats it. Before
any arithmetic, :func:`parse` checks a string against the API server's own grammar
(``splitREString`` in k8s.io/apimachinery ``pkg/api/resource/quantity.go``, v0.37:
``^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$``, the exponent an int64 in
``suffix.go``) and works out its order of magnitude from the digits alone. The
package documents that "no quantity may represent a number greater than 2^63-1 in
magnitude ... numbers larger or more precise will be capped or rounded up", and
``ParseQuantity`` rounds every non-zero amount up to a nano-unit: :func:`parse` does
the same (saturates at :data:`MAX`, rounds up to 1n), so the arithmetic that follows
is always on numbers of at most about 30 digits, whatever the input length. The model
asks for ``saturate=False``: there a number beyond :data:`MAX` is an error with a fix,
and amounts finer than 1n are kept (bounded: at most ~60 significant digits) so the
model's own checks can report them.
Parsed strings are cached in a cache bounded in bytes (only short strings are kept).
"""

from __future__ import annotations

import importlib.util
import math
import re
from decimal import ROUND_CEILING, ROUND_UP, Context, Decimal, localcontext
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from gpufleet.util.boundedcache import ByteBoundedCache

__all__ = ["QuantityError", "parse", "fmt", "is_quantity", "MAX"]

MAX = Decimal(2**63 - 1)  # the largest amount a Kubernetes quantity holds
NANO = Decimal("1e-9")
CACHED_CHARS = 64  # longer strings are parsed every time, never cached
_GRAMMAR = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:([eE])([+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?")
_DECIMAL_SUFFIX = {"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIX = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_WIDE = Context(prec=120)
_EXAMPLES = "(examples: 8, 500m, 1800Gi)"


class QuantityError(ValueError):
    """Raised for a string that is not a Kubernetes quantity."""


@lru_cache(maxsize=1)
def _upstream() -> ModuleType:
    spec = importlib.util.find_spec("kubernetes")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the 'kubernetes' package is required: pip install -r requirements.txt")
    path = Path(list(spec.submodule_search_locations)[0]) / "utils" / "quantity.py"
    mod_spec = importlib.util.spec_from_file_location("_gpufleet_k8s_quantity", path)
    assert mod_spec and mod_spec.loader
    module = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(module)
    return module


def _show(text: str) -> str:
    return repr(text) if len(text) <= 40 else f"{text[:20]!r}...({len(text)} characters)"


def _too_large(shown: str) -> QuantityError:
    return QuantityError(f"{shown} is larger than the largest Kubernetes quantity (2^63-1 = {MAX}, about 8Ei)")


def _bounded(text: str) -> tuple[str, int, int] | Decimal:
    """The string's sign, significant digits and order, or its value when that is decided without arithmetic.

    Value = sign 0.DIGITS x 10^order x 2^binary; returns (text to hand the client, order, binary).
    """
    m = _GRAMMAR.fullmatch(text)
    if m is None or not (m.group(2) or m.group(3)):
        raise QuantityError(f"{_show(text)} is not a Kubernetes quantity {_EXAMPLES}")
    sign, whole, frac, e, exp, suffix = m.groups()
    frac = frac or ""
    if e:
        if len(exp.lstrip("+-").lstrip("0")) > 18:  # Go parses the exponent as an int64
            raise QuantityError(f"{_show(text)} is not a Kubernetes quantity: its exponent is out of range {_EXAMPLES}")
        ten, binary = int(exp), 0
    else:
        ten, binary = _DECIMAL_SUFFIX.get(suffix or "", 0), _BINARY_SUFFIX.get(suffix or "", 0)
    whole = whole.lstrip("0")
    digits = (whole + frac).rstrip("0")
    order = len(whole) + ten
    if not whole:
        stripped = digits.lstrip("0")
        order -= len(digits) - len(stripped)
        digits = stripped
    if not digits:
        return Decimal(0)
    if order + math.ceil(binary * 0.30103) > 40:
        return Decimal(sign + str(MAX)) * 2  # beyond any cap: the caller saturates or refuses
    if order + binary * 0.30103 < -12:
        return Decimal(
            sign + "1e-40"
        )  # non-zero, far below 1n: stands for any such amount (rounded up to 1n in _limit)
    if len(digits) > 60:  # beyond nano precision anyway: keep a non-zero tail so rounding up still happens
        digits = digits[:60] + "1"
    reduced = f"{sign}0.{digits}e{order}"
    return (text if len(text) <= CACHED_CHARS and not e else reduced), order, binary


def _parse_text(text: str) -> Decimal:
    shape = _bounded(text)
    if isinstance(shape, Decimal):
        return shape
    reduced, _, binary = shape
    with localcontext(_WIDE):
        try:
            value = (
                Decimal(_upstream().parse_quantity(reduced))
                if binary == 0 or reduced == text
                else Decimal(reduced) * (2**binary)
            )
        except (ValueError, ArithmeticError) as exc:
            raise QuantityError(f"{_show(text)} is not a Kubernetes quantity {_EXAMPLES}") from exc
        return +value


_CACHE: ByteBoundedCache[str, Decimal] = ByteBoundedCache(1 << 20, lambda text: len(text) + 200)


def _parse_str(text: str) -> Decimal:
    if len(text) > CACHED_CHARS:
        return _parse_text(text)
    return _CACHE.get_or_compute(text, _parse_text)


def _limit(value: Decimal, saturate: bool, shown: str) -> Decimal:
    if abs(value) <= MAX:
        if saturate and int(value.as_tuple().exponent) < -9:  # finer than 1n: round away from zero, as ParseQuantity
            with localcontext(_WIDE):
                return +value.quantize(NANO, rounding=ROUND_UP)
        return value
    if not saturate:
        raise _too_large(shown)
    return MAX if value > 0 else -MAX


_SATURATED: ByteBoundedCache[str, Decimal] = ByteBoundedCache(1 << 20, lambda text: len(text) + 200)


def _parse_saturated(value: str) -> Decimal:
    text = value.strip()
    return _limit(_parse_str(text), True, _show(text))


def parse(value: object, saturate: bool = True) -> Decimal:
    """Parse an int, float, Decimal or quantity string into a Decimal.

    Amounts beyond 2^63-1 saturate at :data:`MAX` (what the API server documents), or
    raise :class:`QuantityError` with ``saturate=False``; infinity and NaN always raise.
    A short string's saturated value is remembered as it is written (a 64-replica job
    asks for the same few quantities in every template and every review).
    """
    if type(value) is str and saturate and len(value) <= CACHED_CHARS:
        return _SATURATED.get_or_compute(value, _parse_saturated)
    if isinstance(value, bool):
        raise QuantityError(f"{value!r} is not a Kubernetes quantity")
    if isinstance(value, int):
        if value.bit_length() > 63:
            return _limit(
                Decimal(1 if value > 0 else -1) * MAX * 2,
                saturate,
                f"an integer of {len(str(abs(value))) if value.bit_length() < 14000 else 'thousands of'} digits",
            )
        return Decimal(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise QuantityError(f"{value} is not a Kubernetes quantity: it must be a finite number {_EXAMPLES}")
        if value.adjusted() > 40:
            return _limit(MAX * 2 * (1 if value > 0 else -1), saturate, f"{value:.3e}")
        return _limit(value, saturate, str(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QuantityError(
                f"{value} is not a Kubernetes quantity: it must be a finite number; "
                f"leave the field out (or write 0) instead of infinity {_EXAMPLES}"
            )
        if abs(value) > 2**64:
            return _limit(MAX * 2 * (1 if value > 0 else -1), saturate, repr(value))
        return _limit(Decimal(repr(value)) if value != int(value) else Decimal(int(value)), saturate, repr(value))
    if isinstance(value, str):
        text = value.strip()
        return _limit(_parse_str(text), saturate, _show(text))
    raise QuantityError(f"{_show(repr(value))} is not a Kubernetes quantity {_EXAMPLES}")


def is_quantity(value: object) -> bool:
    try:
        parse(value)
    except QuantityError:
        return False
    return True


_BINARY = [("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)]


def fmt(value: Decimal | int, binary: bool = False) -> str:
    """Format a quantity canonically: ``98304``, ``500m``, ``900Ti`` (binary=True for memory).

    Values too large for a quantity (sums of saturated amounts) are written in exponent
    form with 7 significant digits rather than expanded digit by digit.
    """
    value = Decimal(value)
    if not value.is_finite():
        raise QuantityError(f"{value} is not a Kubernetes quantity")
    if value.adjusted() > 40:
        return f"{value:.6e}"
    if value == value.to_integral_value():
        integer = int(value)
        if binary and integer:
            for suffix, size in _BINARY:
                if integer % size == 0:
                    return f"{integer // size}{suffix}"
        return str(integer)
    milli = value * 1000
    if milli == milli.to_integral_value():
        return f"{int(milli)}m"
    # Finer than a milli-unit: round up to the next milli-unit, as the API server does.
    if value.adjusted() < -40:
        return "1m" if value > 0 else "0"
    return f"{int(milli.to_integral_value(rounding=ROUND_CEILING))}m"


def json_number(value: Decimal | None) -> int | float | None:
    """An amount as a JSON number (a whole amount an integer), None kept: every ``--format json`` of the CLI."""
    if value is None:
        return None
    return int(value) if value == value.to_integral_value() else float(value)
