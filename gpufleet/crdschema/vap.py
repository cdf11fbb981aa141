"""A ValidatingAdmissionPolicy evaluated with cel-python, as the API server binds it.

Called by the equality tests of the rules' CEL forms (``tests/rules/test_cel_equality.py``)
to compare the rendered policies (:mod:`gpufleet.rules.admission_policies`) with the rule
engine offline. What the API server does, for one request the policy's resources match
(``k8s.io/apiserver/pkg/admission/plugin/policy/validating``, v1.37):

- ``matchConditions`` run first: a false one skips the policy;
- ``variables`` are bound as ``variables.<name>``, each computed when first read (as the
  API server does: a variable reading ``oldObject`` is never computed on CREATE unless read),
  an error becoming an error value that ``&&``, ``||`` and ``?:`` may absorb;
- each validation whose ``expression`` is false fails with its ``messageExpression``
  (else ``message``); an expression that errors or is not a bool fails too
  (``failurePolicy: Fail``), reported here as :class:`PolicyError`;
- ``object``, ``oldObject`` (null on CREATE), ``params``, ``namespaceObject`` and
  ``request`` (operation, resource, namespace) are the activation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from celpy import celtypes

from gpufleet.crdschema.cel.ext import compile_program, to_cel
from gpufleet.crdschema.cel.run import evaluation


class PolicyError(Exception):
    """An expression the API server would fail on (``failurePolicy: Fail`` then denies)."""


@dataclass(frozen=True)
class Request:
    """The ``request`` of an admission review, as far as the policies read it."""

    group: str
    version: str
    resource: str
    namespace: str
    operation: str = "CREATE"


@dataclass
class CompiledPolicy:
    """A rendered ValidatingAdmissionPolicy's expressions, compiled once."""

    policy: Mapping[str, Any]
    conditions: list[Any] = field(default_factory=list)
    variables: list[tuple[str, Any]] = field(default_factory=list)
    validations: list[tuple[Any, Any, str]] = field(default_factory=list)

    @classmethod
    def of(cls, policy: Mapping[str, Any]) -> CompiledPolicy:
        """Compiled; raises :class:`PolicyError` for an expression reading an undeclared variable or giving ``has()``
        anything but a field selection, which the API server's compiler refuses even where evaluation would never
        reach it (cel-python accepts ``has(a[b])``), and for a variable named by a reserved word."""
        spec = policy["spec"]
        declared = {v["name"] for v in spec.get("variables") or []}
        bad_names = sorted(n for n in declared if not _IDENTIFIER.fullmatch(n) or n in RESERVED)
        if bad_names:
            raise PolicyError(f"variable names {bad_names} are not valid CEL identifiers")
        for text in _expressions(spec):
            unknown = set(_VARIABLE.findall(text)) - declared
            if unknown:
                raise PolicyError(f"undeclared variables {sorted(unknown)} in {text[:200]}")
            bad = [arg for arg in _has_arguments(text) if not _SELECTION.search(arg)]
            if bad:
                raise PolicyError(f"invalid argument to has() macro: {bad[0][:200]} (a field selection only)")
        return cls(
            policy,
            [compile_program(c["expression"]) for c in spec.get("matchConditions") or []],
            [(v["name"], compile_program(v["expression"])) for v in spec.get("variables") or []],
            [
                (
                    compile_program(v["expression"]),
                    compile_program(v["messageExpression"]) if v.get("messageExpression") else None,
                    str(v.get("message") or ""),
                )
                for v in spec.get("validations") or []
            ],
        )

    def matches(self, request: Request) -> bool:
        """Whether the policy's resource rules hold the request's resource and operation."""
        return any(
            (request.group in r["apiGroups"])
            and request.version in r["apiVersions"]
            and request.resource in r["resources"]
            and request.operation in r["operations"]
            for r in self.policy["spec"]["matchConstraints"]["resourceRules"]
        )

    def failures(
        self,
        obj: Mapping[str, Any],
        request: Request,
        *,
        old: Mapping[str, Any] | None = None,
        params: Mapping[str, Any] | None = None,
        namespace: Mapping[str, Any] | None = None,
    ) -> list[str]:
        """The messages of the failing validations (empty: admitted); raises :class:`PolicyError` on a CEL error."""
        if not self.matches(request):
            return []
        names = {
            "object": to_cel(dict(obj)),
            "oldObject": to_cel(dict(old)) if old is not None else None,
            "params": to_cel(dict(params)) if params is not None else None,
            "namespaceObject": to_cel(dict(namespace)) if namespace is not None else None,
            "request": to_cel(
                {
                    "operation": request.operation,
                    "namespace": request.namespace,
                    "resource": {"group": request.group, "version": request.version, "resource": request.resource},
                }
            ),
        }
        if not all(_boolean(c, names, "matchCondition") for c in self.conditions):
            return []
        names["variables"] = _Lazy(dict(self.variables), names)
        out = []
        for program, message_program, message in self.validations:
            if not _boolean(program, names, "validation"):
                out.append(str(_evaluate(message_program, names, "messageExpression")) if message_program else message)
        return out


_VARIABLE = re.compile(r"\bvariables\.(\w+)")
_SELECTION = re.compile(r"\.\s*[A-Za-z_]\w*\s*$")
"""What ``has()`` takes: an expression ending in a field selection (``a.b``, never ``a[b]``)."""


def _has_arguments(text: str) -> list[str]:
    """The argument text of every ``has(...)`` in ``text`` (string literals here hold no parentheses)."""
    out = []
    for match in re.finditer(r"\bhas\(", text):
        depth, start = 1, match.end()
        for i in range(start, len(text)):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                out.append(text[start:i])
                break
    return out


_IDENTIFIER = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")
RESERVED = frozenset(
    {
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    }
)
"""CEL's reserved words: the API server refuses a variable so named ("must be a valid CEL identifier", seen on the e2e
run of tests/e2e/test_vap_e2e.py for a variable named ``namespace``)."""


def _expressions(spec: Mapping[str, Any]) -> list[str]:
    out = [str(c["expression"]) for c in spec.get("matchConditions") or []]
    out += [str(v["expression"]) for v in spec.get("variables") or []]
    for v in spec.get("validations") or []:
        out += [str(v["expression"]), str(v.get("messageExpression") or "")]
    return out


class _Lazy(celtypes.MapType):
    """``variables``: each computed on first read, an error kept as cel-python's error value."""

    def __init__(self, programs: dict[str, Any], names: dict[str, Any]) -> None:
        super().__init__({celtypes.StringType(n): None for n in programs})
        self._programs, self._names = programs, names
        self._done: dict[str, Any] = {}

    def __getitem__(self, key: Any) -> Any:
        name = str(key)
        if name not in self._done:
            if name not in self._programs:
                raise KeyError(key)
            try:
                self._done[name] = self._programs[name].evaluate(self._names)
            except Exception as exc:  # noqa: BLE001 - an error value, as CEL has them
                self._done[name] = evaluation().CELEvalError(f"variable {name}: {str(exc)[:200]}")
        return self._done[name]


def _evaluate(program: Any, names: dict[str, Any], what: str) -> Any:
    try:
        return program.evaluate(names)
    except Exception as exc:  # noqa: BLE001 - every cel-python failure is a failing policy here
        raise PolicyError(f"{what}: {str(exc)[:300]}") from None


def _boolean(program: Any, names: dict[str, Any], what: str) -> bool:
    value = _evaluate(program, names, what)
    if not isinstance(value, (bool, celtypes.BoolType)):
        raise PolicyError(f"{what} evaluated to {type(value).__name__}, not a bool")
    return bool(value)
