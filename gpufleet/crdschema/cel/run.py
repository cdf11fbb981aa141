"""A faster way to run cel-python's own interpreter.

Called by :mod:`gpufleet.crdschema.cel.ext`. cel-python 0.5 interprets the lark syntax
tree directly; on CRD rules most of its time goes to four overheads, none of them
CEL semantics:

1. ``InterpretedRunner`` rebuilds its activation (annotations, a deep copy of all
   names) on every call, and macros (``all``, ``filter``, ...) deep-copy it again
   for every element. :class:`Program` builds the activation once and binds
   variables in a child scope (``Activation.nested_activation``).
2. Every node walks a chain of one-child grammar levels (``expr`` ->
   ``conditionalor`` -> ... -> ``member``) that only pass the value through;
   :func:`collapse` drops them from the tree once, at compile time.
3. ``typing.cast(Tuple[Result, ...], x)`` in the evaluator builds and hashes large
   ``Union`` types on every node at run time. The evaluator runs from a private copy
   of ``celpy.evaluation`` (loaded by file, like :mod:`gpufleet.kubetypes.quantity` does for
   the Kubernetes client) in which those names are erased; the global ``celpy``
   module is left untouched for other users.

4. ``||`` and ``&&`` evaluate their right side even when the left one decides; here a
   decisive left side (``true ||``, ``false &&``) is the result, which CEL's semantics make
   the same value (the right side's error is absorbed either way).

The evaluation code itself is cel-python's. ``tests/crdschema`` checks that every
rule of the shared CRDs evaluates exactly as stock cel-python does.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from types import ModuleType
from typing import Any

import celpy
import celpy.evaluation
import lark

_RUNTIME_TYPING = ("Callable", "Dict", "Iterable", "Iterator", "List", "Optional", "Tuple", "Type", "Union")
_PASS_THROUGH = frozenset(
    {"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary", "member"}
)


class _Erased:
    """Stands in for ``typing`` generics whose only run-time use is inside ``cast``."""

    def __getitem__(self, _item: Any) -> _Erased:
        return self


@lru_cache(maxsize=1)
def evaluation() -> ModuleType:
    """A private copy of ``celpy.evaluation`` without run-time typing work."""
    origin = celpy.evaluation.__file__
    spec = importlib.util.spec_from_file_location("_gpufleet_celpy_evaluation", origin)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    erased = _Erased()
    for name in _RUNTIME_TYPING:
        setattr(module, name, erased)
    module.cast = lambda _type, value: value  # type: ignore[attr-defined]  # a module object takes any attribute; the private copy's cast is replaced
    return module


EVAL_ERRORS: tuple[type[Exception], ...] = (celpy.evaluation.CELEvalError, evaluation().CELEvalError)
"""What a failing evaluation raises (stock cel-python's or the private copy's class)."""


class _Evaluator(evaluation().Evaluator):  # type: ignore[misc]  # a base made at import time (the private copy)
    """cel-python's evaluator, binding macro variables in a child scope instead of a deep copy."""

    def set_activation(self, values: Any) -> _Evaluator:
        self.activation = self.base_activation.nested_activation(vars=values)
        return self

    def sub_evaluator(self, ast: Any) -> _Evaluator:
        return _Evaluator(ast, activation=self.activation)

    def conditionalor(self, tree: lark.Tree) -> Any:
        return self._logical(tree, "_||_", True) if len(tree.children) == 2 else super().conditionalor(tree)

    def conditionaland(self, tree: lark.Tree) -> Any:
        return self._logical(tree, "_&&_", False) if len(tree.children) == 2 else super().conditionaland(tree)

    def _logical(self, tree: lark.Tree, name: str, decides: bool) -> Any:
        """``||`` (``&&``) whose left side is ``true`` (``false``) is that, whatever the right side is or raises (CEL's
        logical operators); cel-python evaluates the right side anyway, which the admission policies' kind guards
        make the larger part of their cost. Otherwise the stock function on both values, as cel-python does."""
        left = self.visit(tree.children[0])
        if isinstance(left, celpy.celtypes.BoolType) and bool(left) is decides:
            return left
        right = self.visit(tree.children[1])
        try:
            return self.activation.resolve_function(name)(left, right)
        except TypeError as ex:
            value = evaluation().CELEvalError(
                f"found no matching overload for {name} applied to '({type(left)}, {type(right)})'",
                ex.__class__,
                ex.args,
                tree=tree,
            )
            value.__cause__ = ex
            return value


def collapse(tree: Any) -> Any:
    """Drop the one-child grammar levels the evaluator only passes a value through."""
    while (
        isinstance(tree, lark.Tree)
        and tree.data in _PASS_THROUGH
        and len(tree.children) == 1
        and isinstance(tree.children[0], lark.Tree)
    ):
        tree = tree.children[0]
    if isinstance(tree, lark.Tree):
        tree.children = [collapse(child) for child in tree.children]
    return tree


class Program:
    """One compiled expression; ``evaluate({"self": value})`` returns a CEL value or raises."""

    def __init__(self, ast: Any, functions: dict[str, Any]) -> None:
        self.ast = collapse(ast)
        self._base = evaluation().Activation(annotations=dict(celpy.googleapis), functions=functions)

    def evaluate(self, context: dict[str, Any]) -> Any:
        activation = self._base.nested_activation(vars=context)
        value = _Evaluator(self.ast, activation=activation).visit(self.ast)
        if isinstance(value, EVAL_ERRORS):
            raise value
        return value
