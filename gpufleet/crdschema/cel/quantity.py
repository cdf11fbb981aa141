"""Kubernetes' CEL quantity library for cel-python: ``quantity()``, ``isQuantity()`` and the Quantity methods.

Registered by :mod:`gpufleet.crdschema.cel.ext` (``SHIMS``) so that the offline evaluator of the
ValidatingAdmissionPolicies (:mod:`gpufleet.crdschema.vap`) runs the GPU rules' CEL forms
(``gpufleet/rules/gpus``) as the API server does. A faithful port of
``k8s.io/apiserver/pkg/cel/library/quantity.go`` (read at tag v0.37.0-beta.0, the newest
tag of the stored snapshot; the sandbox builds v0.37.2) and of ``Quantity.Equal`` in
``k8s.io/apiserver/pkg/cel/quantity.go``:

- ``quantity(s)`` parses with ``resource.ParseQuantity`` (an error for a non-quantity, for
  ``200K``, ``Mi``, a blank or space-padded string) and ``isQuantity(s)`` is true exactly when
  it would not fail; both take strings only (an int is "no such overload");
- ``q.isInteger()`` / ``q.asInteger()``: ``AsInt64`` (a whole amount within int64; else false,
  or the error "cannot convert value to integer");
- ``q.asApproximateFloat()``, ``sign(q)`` (declared as a global overload upstream, so only
  ``sign(q)`` compiles there), ``q.compareTo(o)``, ``q.isGreaterThan(o)``, ``q.isLessThan(o)``;
- ``q.add(o)`` / ``q.sub(o)`` with a quantity or an int; ``==`` compares values (``Cmp == 0``).

Values are parsed by the project's one parser (:func:`gpufleet.kubetypes.quantity.parse`, the
Kubernetes client's grammar, bounded, rounding up to 1n as ``ParseQuantity`` does); an amount
beyond int64, which that parser saturates at 2^63-1, is kept beyond it (twice the bound), so
that ``isInteger`` is false for it as upstream's example says. ``tests/crdschema/cel/test_quantity.py`` has a test per function.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from celpy import celtypes

from gpufleet.kubetypes import quantity as kq

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class Quantity:
    """A ``kubernetes.Quantity`` CEL value (its amount as a Decimal)."""

    __slots__ = ("amount",)

    def __init__(self, amount: Decimal) -> None:
        self.amount = amount

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.amount == other.amount

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self.amount)

    def __repr__(self) -> str:
        return f"quantity({kq.fmt(self.amount)!r})"


def _no_overload(name: str, *args: Any) -> TypeError:
    return TypeError(f"no such overload: {name}({', '.join(type(a).__name__ for a in args)})")


def _parse(text: Any) -> Decimal:
    """``resource.ParseQuantity``: a string of the grammar, nothing around it."""
    if not isinstance(text, str):
        raise _no_overload("quantity", text)
    if not text or text != text.strip():
        raise ValueError(f"quantities must match the regular expression: {text!r}")
    try:
        amount = kq.parse(str(text))
    except (kq.QuantityError, ValueError, ArithmeticError) as exc:
        raise ValueError(f"quantities must match the regular expression: {text!r}") from exc
    if abs(amount) == kq.MAX and not _within_int64(text):
        return amount * 2  # beyond int64: ParseQuantity keeps it (asInteger fails); the project's parser saturates
    return amount


def _within_int64(text: str) -> bool:
    try:
        kq.parse(text, saturate=False)
    except kq.QuantityError:
        return False
    return True


def quantity(text: Any) -> Quantity:
    return Quantity(_parse(text))


def is_quantity(text: Any) -> celtypes.BoolType:
    if not isinstance(text, str):
        raise _no_overload("isQuantity", text)
    try:
        _parse(text)
    except ValueError:
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def _q(name: str, value: Any) -> Decimal:
    if not isinstance(value, Quantity):
        raise _no_overload(name, value)
    return value.amount


def _operand(name: str, value: Any) -> Decimal:
    """A quantity, or an int (``resource.NewQuantity(i, DecimalExponent)``) for ``add``/``sub``."""
    if isinstance(value, Quantity):
        return value.amount
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(int(value))
    raise _no_overload(name, value)


def _fits_int64(amount: Decimal) -> bool:
    return amount == amount.to_integral_value() and INT64_MIN <= amount <= INT64_MAX


def is_integer(q: Any) -> celtypes.BoolType:
    return celtypes.BoolType(_fits_int64(_q("isInteger", q)))


def as_integer(q: Any) -> celtypes.IntType:
    amount = _q("asInteger", q)
    if not _fits_int64(amount):
        raise ValueError("cannot convert value to integer")
    return celtypes.IntType(int(amount))


def as_approximate_float(q: Any) -> celtypes.DoubleType:
    return celtypes.DoubleType(float(_q("asApproximateFloat", q)))


def sign(q: Any) -> celtypes.IntType:
    amount = _q("sign", q)
    return celtypes.IntType((amount > 0) - (amount < 0))


def compare_to(q: Any, other: Any) -> celtypes.IntType:
    a, b = _q("compareTo", q), _q("compareTo", other)
    return celtypes.IntType((a > b) - (a < b))


def is_greater_than(q: Any, other: Any) -> celtypes.BoolType:
    return celtypes.BoolType(_q("isGreaterThan", q) > _q("isGreaterThan", other))


def is_less_than(q: Any, other: Any) -> celtypes.BoolType:
    return celtypes.BoolType(_q("isLessThan", q) < _q("isLessThan", other))


def add(q: Any, other: Any) -> Quantity:
    return Quantity(_q("add", q) + _operand("add", other))


def sub(q: Any, other: Any) -> Quantity:
    return Quantity(_q("sub", q) - _operand("sub", other))


FUNCTIONS: dict[str, Any] = {
    "quantity": quantity,
    "isQuantity": is_quantity,
    "isInteger": is_integer,
    "asInteger": as_integer,
    "asApproximateFloat": as_approximate_float,
    "sign": sign,
    "compareTo": compare_to,
    "isGreaterThan": is_greater_than,
    "isLessThan": is_less_than,
    "add": add,
    "sub": sub,
}
"""The library's functions by CEL name (member functions take the receiver first, as cel-python calls them)."""
