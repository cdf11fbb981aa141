"""Kubernetes quantities (``8``, ``500m``, ``1800Gi``) for the model, renderers and rules.

Parsing is done by the official Kubernetes Python client
(``kubernetes.utils.quantity.parse_quantity``). That module depends only on
:mod:`decimal`, but importing it through the ``kubernetes`` package would first
import the whole API client (about half a second), so it is loaded by file from the
installed package. Formatting writes the canonical form the API server would keep,
so rendered quantities never show a permanent diff.
"""

from __future__ import annotations

import importlib.util
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from types import ModuleType

__all__ = ["QuantityError", "parse", "fmt", "is_quantity"]


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


@lru_cache(maxsize=4096)
def _parse_str(text: str) -> Decimal:
    try:
        return Decimal(_upstream().parse_quantity(text))
    except (ValueError, ArithmeticError) as exc:
        raise QuantityError(f"{text!r} is not a Kubernetes quantity (examples: 8, 500m, 1800Gi)") from exc


def parse(value: object) -> Decimal:
    """Parse an int, float, Decimal or quantity string into a Decimal."""
    if isinstance(value, bool):
        raise QuantityError(f"{value!r} is not a Kubernetes quantity")
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value)) if value != int(value) else Decimal(int(value))
    if isinstance(value, str):
        return _parse_str(value.strip())
    raise QuantityError(f"{value!r} is not a Kubernetes quantity (examples: 8, 500m, 1800Gi)")


def is_quantity(value: object) -> bool:
    try:
        parse(value)
    except QuantityError:
        return False
    return True


_BINARY = [("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)]


def fmt(value: Decimal | int, binary: bool = False) -> str:
    """Format a quantity canonically: ``98304``, ``500m``, ``900Ti`` (binary=True for memory)."""
    value = Decimal(value)
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
    return f"{int(milli.to_integral_value(rounding='ROUND_CEILING'))}m"
