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
   ``optional.none()``.
2. **A faster runner.** cel-python's ``InterpretedRunner`` rebuilds its activation
   (type annotations, a deep copy of names) on every call; :class:`ReusableRunner`
   builds it once per program and layers each call's variables on top.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import celpy
import lark
from celpy import celtypes
from celpy.evaluation import CELEvalError, Evaluator


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


SHIMS: dict[str, Any] = {"sum": _sum, "hasValue": _has_value, "orValue": _or_value}
"""Kubernetes CEL extension functions registered on top of cel-python."""


class _Evaluator(Evaluator):
    """cel-python's evaluator, binding macro variables in a child scope instead of a deep copy."""

    def set_activation(self, values: Any) -> "_Evaluator":
        self.activation = self.base_activation.nested_activation(vars=values)
        return self

    def sub_evaluator(self, ast: Any) -> "_Evaluator":
        return _Evaluator(ast, activation=self.activation)


_PASS_THROUGH = frozenset({"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary", "member"})


def _collapse(tree: Any) -> Any:
    """Drop the one-child grammar levels (expr -> conditionalor -> ... -> member) the evaluator only passes through."""
    while isinstance(tree, lark.Tree) and tree.data in _PASS_THROUGH and len(tree.children) == 1 \
            and isinstance(tree.children[0], lark.Tree):
        tree = tree.children[0]
    if isinstance(tree, lark.Tree):
        tree.children = [_collapse(child) for child in tree.children]
    return tree


class ReusableRunner(celpy.InterpretedRunner):
    """An interpreted runner whose base activation is built once, not per call."""

    def __init__(self, environment: celpy.Environment, ast: Any, functions: Any = None) -> None:
        super().__init__(environment, _collapse(ast) if COLLAPSE else ast, functions)
        self._base = self.new_activation()

    def evaluate(self, context: Any) -> Any:
        activation = self._base.nested_activation(vars=context)
        value = _Evaluator(self.ast, activation=activation).visit(self.ast)
        if isinstance(value, CELEvalError):
            raise value
        return value


COLLAPSE = True


_ENV: celpy.Environment | None = None


def compile_program(expression: str) -> ReusableRunner:
    """Parse ``expression`` and bind the shims; raises ``celpy.CELParseError`` on bad syntax."""
    global _ENV
    if _ENV is None:
        _ENV = celpy.Environment(runner_class=ReusableRunner)
    return _ENV.program(_ENV.compile(expression), functions=SHIMS)  # type: ignore[return-value]


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
