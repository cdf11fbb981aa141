"""CEL spellings of the mutator's building blocks, for the MutatingAdmissionPolicies (:mod:`gpufleet.mutate.policies`).

Pure string builders, no Kubernetes call. Each returns a CEL expression; the JSON Patch ones
evaluate to a ``list(JSONPatch)`` (``admissionregistration.k8s.io/v1`` ``Mutation.jsonPatch``),
the others to a value. They read the object through ``root`` (``object``, or a comprehension
variable such as a task) and write at ``pointer`` (a CEL string: the JSON pointer of ``root``).

:func:`set_default` is :meth:`gpufleet.mutate.patch.PatchBuilder.set_default` in CEL: one
``add`` at the first missing map on the way, carrying the rest of the path as nested maps, and
nothing when the leaf holds a value (``unset`` says which values count as none). Two defaults
under one missing map would each add the map, the second replacing the first: the policies put
such defaults in separate mutations, which the API server applies one after the other.
Comprehensions use the two-variable macros (``transformList``, Kubernetes 1.32+) and
``flatten`` (the CEL lists extension, 1.34+), which 1.36, the first version with these
policies in ``v1``, has.
"""

from __future__ import annotations

import re
from typing import Sequence

from gpufleet.kubetypes.fieldpath import escape

_FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def string(text: str) -> str:
    """``text`` as a CEL string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def select(root: str, key: str) -> str:
    """``root``'s ``key``: a field selection, or an index for a map key that is no identifier (a label key)."""
    return f"{root}.{key}" if _FIELD.match(key) else f"{root}[{string(key)}]"


def present(root: str, key: str) -> str:
    """Whether ``root`` has ``key`` (``has()`` for a field, ``in`` for any other map key)."""
    return f"has({root}.{key})" if _FIELD.match(key) else f"{string(key)} in {root}"


def chain(root: str, keys: Sequence[str]) -> str:
    """True when every key of ``keys`` is present under ``root`` in turn (``true`` for none)."""
    tests, node = [], root
    for key in keys:
        tests.append(present(node, key))
        node = select(node, key)
    return " && ".join(tests) if tests else "true"


def read(root: str, keys: Sequence[str]) -> str:
    node = root
    for key in keys:
        node = select(node, key)
    return node


def text_or(root: str, keys: Sequence[str], default: str = "''") -> str:
    """The value at ``keys`` under ``root``, or ``default`` when a key on the way is absent."""
    return f"({chain(root, keys)} ? {read(root, keys)} : {default})" if keys else root


def op(pointer: str, value: str) -> str:
    return f"JSONPatch{{op: 'add', path: {pointer}, value: {value}}}"


def _nest(keys: Sequence[str], value: str) -> str:
    for key in reversed(keys):
        value = f"{{{string(key)}: {value}}}"
    return value


def _path(pointer: str, keys: Sequence[str]) -> str:
    tail = "".join("/" + escape(k) for k in keys)
    if pointer == "''":
        return string(tail)
    return f"{pointer} + {string(tail)}"


def set_default(root: str, pointer: str, keys: Sequence[str], value: str, unset: str = "== ''") -> str:
    """JSON Patch ops setting ``value`` at ``keys`` under ``root`` where absent or ``<leaf> <unset>``."""
    branches, node = [], root
    for depth, key in enumerate(keys):
        last = depth == len(keys) - 1
        missing = f"!({present(node, key)})"
        node = select(node, key)
        if last:
            missing = f"({missing} || {node} {unset})" if unset else missing
        branches.append((missing, f"[{op(_path(pointer, keys[: depth + 1]), _nest(keys[depth + 1 :], value))}]"))
    out = "[]"
    for missing, ops in reversed(branches):
        out = f"({missing} ? {ops} : {out})"
    return out


def each(items: str, index: str, item: str, body: str, where: str = "true") -> str:
    """The ops of ``body`` for every element of ``items`` (a list, or a map: then ``index`` is the key)
    for which ``where`` holds, concatenated."""
    return f"{items}.transformList({index}, {item}, {where}, {body}).flatten()"
