"""cel-python set up for Kubernetes ``x-kubernetes-validations`` rules.

Called by :mod:`gpufleet.crdschema.cel` (and usable by anyone unit-testing
ValidatingAdmissionPolicy expressions). Two things live here:

1. **Shims** for Kubernetes CEL library functions that cel-python 0.5 lacks. The
   shared CRDs (Kueue 0.19, Volcano 1.15, JobSet, Trainer, ...) use only core CEL
   (``has``, ``all``, ``exists``, ``filter``, ``size``, ``matches``, ``in``, indexing),
   which cel-python evaluates as is; ``tests/crdschema`` asserts that every rule in
   them compiles and evaluates. What is registered is exactly what gpufleet needs:
   ``sum`` for lists (Volcano's admission policies total task replicas with
   ``tasks.map(t, t.replicas).sum()``), and ``hasValue``/``orValue`` so that rules
   with ``optionalOldSelf: true`` can run on creation, where ``oldSelf`` is
   ``optional.none()``. The admission policies (:mod:`gpufleet.rules.celform`) add ``trim``,
   ``upperAscii``, ``lowerAscii``, ``replace`` and ``indexOf``, and the GPU rules' forms Kubernetes' quantity
   library (:mod:`gpufleet.crdschema.cel.quantity`).
2. **Compilation** to a :class:`gpufleet.crdschema.cel.run.Program` (cel-python's
   interpreter without its per-call overheads) and conversion of JSON values.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import celpy
from celpy import celtypes
from celpy.celparser import CELParser

from gpufleet.crdschema.cel.quantity import FUNCTIONS as QUANTITY_FUNCTIONS
from gpufleet.crdschema.cel.run import EVAL_ERRORS, Program

__all__ = ["EVAL_ERRORS", "NO_VALUE", "SHIMS", "compile_program", "stock_program", "to_cel"]


class NoValue:
    """``optional.none()``: the value of ``oldSelf`` when an object is created."""

    def __repr__(self) -> str:
        return "optional.none()"


NO_VALUE = NoValue()


def _sum(items: Any) -> Any:
    if not isinstance(items, list):
        raise TypeError(f"no such overload: sum({type(items).__name__})")
    if not items:
        return celtypes.IntType(0)
    return reduce(lambda a, b: a + b, items)


def _has_value(optional: Any) -> celtypes.BoolType:
    return celtypes.BoolType(not isinstance(optional, NoValue))


def _or_value(optional: Any, default: Any) -> Any:
    return default if isinstance(optional, NoValue) else optional


_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
"""Go's ``unicode.IsSpace``: what the Kubernetes strings library's ``trim`` removes (``strings.TrimSpace``)."""


def _trim(text: Any) -> Any:
    return celtypes.StringType(str(text).strip(_GO_SPACE))


def _ascii_case(upper: bool) -> Any:
    table = (
        str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        if upper
        else str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
    )
    return lambda text: celtypes.StringType(str(text).translate(table))


def _replace(text: Any, old: Any, new: Any, count: Any = -1) -> Any:
    """The strings library's ``replace``: every occurrence (``strings.Replace`` with n < 0), else the first ``count``."""
    return celtypes.StringType(str(text).replace(str(old), str(new), int(count) if int(count) >= 0 else -1))


def _index_of(items: Any, item: Any) -> Any:
    for at, value in enumerate(items):
        if value == item:
            return celtypes.IntType(at)
    return celtypes.IntType(-1)


SHIMS: dict[str, Any] = {
    "sum": _sum,
    "hasValue": _has_value,
    "orValue": _or_value,
    "trim": _trim,
    "upperAscii": _ascii_case(True),
    "lowerAscii": _ascii_case(False),
    "indexOf": _index_of,
    "replace": _replace,
    **QUANTITY_FUNCTIONS,
}
"""Kubernetes CEL extension functions registered on top of cel-python (the strings library's ``trim``,
``upperAscii``, ``lowerAscii``, ``replace``, the lists library's ``indexOf`` and the quantity library serve the admission
policies' expressions, :mod:`gpufleet.rules.celform`)."""


def compile_program(expression: str) -> Program:
    """Parse ``expression`` and bind the shims; raises ``celpy.CELParseError`` on bad syntax."""
    return Program(CELParser().parse(expression), SHIMS)


def stock_program(expression: str) -> Any:
    """The same expression on stock cel-python (``InterpretedRunner``), for comparisons."""
    env = celpy.Environment()
    return env.program(env.compile(expression), functions=SHIMS)


def to_cel(value: Any) -> Any:
    """A plain JSON value as CEL values (maps, lists, strings, ints, doubles, bools).

    Same result as ``celpy.json_to_cel`` for JSON input, dispatching on the exact type
    (``json_to_cel`` tests ``typing`` unions, which dominates its cost).
    """
    convert = _CONVERT.get(type(value))
    if convert is not None:
        return convert(value)
    return celpy.json_to_cel(value)


_CONVERT: dict[type, Any] = {
    dict: lambda v: celtypes.MapType({celtypes.StringType(k): to_cel(x) for k, x in v.items()}),
    list: lambda v: celtypes.ListType([to_cel(x) for x in v]),
    str: celtypes.StringType,
    bool: celtypes.BoolType,
    int: celtypes.IntType,
    float: celtypes.DoubleType,
    type(None): lambda v: None,
}
