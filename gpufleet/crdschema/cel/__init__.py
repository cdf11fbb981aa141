"""``x-kubernetes-validations`` (CEL) rules of one CRD version, compiled once.

Called by :mod:`gpufleet.crdschema.crdset`. :func:`build` walks the schema once and
keeps only the branches that carry rules (a :class:`RuleNode` tree), compiling each
rule with cel-python (:mod:`gpufleet.crdschema.cel.ext`). :func:`check` walks an
object along that tree and evaluates every rule at the node where it is declared,
``self`` bound to the node's value, as the API server does on create:

- transition rules (they mention ``oldSelf``) are skipped, except with
  ``optionalOldSelf: true``, where ``oldSelf`` is ``optional.none()``;
- the message is ``messageExpression``, else ``message``, else ``failed rule: <rule>``;
  the path is the node's, plus ``fieldPath`` when the rule gives one;
- a rule that reads a field the object lacks fails like on the API server
  ("no such key"); a rule cel-python cannot compile or evaluate reports nothing
  and is recorded in ``unsupported`` so it is never skipped silently.

Results are memoised by rule and node value (CEL rules are pure).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

import orjson
from celpy import celtypes

from gpufleet.crdschema.cel.ext import EVAL_ERRORS, NO_VALUE, compile_program, to_cel
from gpufleet.kubetypes.fieldpath import ROOT, FieldPath
from gpufleet.yamlin.errors import Issue

_OLD_SELF = re.compile(r"\boldSelf\b")
_DATA_ERRORS = ("no such member", "no such key", "index out of", "list index out of range")
_MEMO_LIMIT = 50_000


@dataclass(frozen=True)
class Unsupported:
    """A rule cel-python could not compile or evaluate."""

    crd: str
    path: str
    rule: str
    reason: str


@dataclass(eq=False)
class CelRule:
    """One compiled rule and where it is declared."""

    crd: str
    schema_path: str
    rule: str
    schema: dict[str, Any]
    message: str = ""
    field_path: str = ""
    transition: bool = False
    optional_old_self: bool = False
    program: Any = None
    message_program: Any = None
    compile_error: str = ""

    @property
    def runs_on_create(self) -> bool:
        return self.program is not None and (not self.transition or self.optional_old_self)

    def evaluate(self, value: Any) -> tuple[bool | None, str]:
        """(passed, detail): ``None`` when cel-python could not evaluate the rule (detail says why)."""
        context = {"self": value}
        if self.optional_old_self:
            context["oldSelf"] = NO_VALUE
        try:
            result = self.program.evaluate(context)
        except EVAL_ERRORS as exc:
            reason = (str(exc.args[0]) if exc.args else str(exc)).split(" (in activation")[0]
            if any(marker in reason for marker in _DATA_ERRORS):
                return False, f"the rule could not be evaluated: {reason}"
            return None, reason
        except Exception as exc:  # cel-python raises plain Python errors on some unsupported paths
            return None, f"{type(exc).__name__}: {exc}"
        if isinstance(result, (bool, celtypes.BoolType)):
            return bool(result), ""
        return None, f"evaluated to {type(result).__name__}, not a bool"

    def failure_message(self, value: Any) -> str:
        if self.message_program is not None:
            try:
                text = self.message_program.evaluate({"self": value})
                if isinstance(text, str) and text.strip():
                    return str(text)
            except Exception:  # a broken messageExpression falls back to message, as on the API server
                pass
        return self.message or f"failed rule: {self.rule}"


@dataclass(eq=False)
class RuleNode:
    """The rules declared at one schema node and the children that carry rules."""

    rules: list[CelRule] = field(default_factory=list)
    props: dict[str, RuleNode] = field(default_factory=dict)
    additional: RuleNode | None = None
    items: RuleNode | None = None

    def walk(self) -> list[CelRule]:
        out = list(self.rules)
        for child in [*self.props.values(), self.additional, self.items]:
            if child is not None:
                out.extend(child.walk())
        return out


def build(schema: dict[str, Any], crd: str, path: FieldPath = ROOT) -> RuleNode | None:
    """The rule tree of ``schema`` (``None`` when no rule is declared anywhere below)."""
    if not isinstance(schema, dict):
        return None
    node = RuleNode(
        rules=[
            _compile(spec, schema, crd, str(path) or "(root)") for spec in schema.get("x-kubernetes-validations") or []
        ]
    )
    for name, sub in (schema.get("properties") or {}).items():
        child = build(sub, crd, path.child(name))
        if child is not None:
            node.props[name] = child
    extra = schema.get("additionalProperties")
    node.additional = build(extra, crd, path.child("*")) if isinstance(extra, dict) else None
    items = schema.get("items")
    node.items = build(items, crd, path.key("*")) if isinstance(items, dict) else None
    has_any = node.rules or node.props or node.additional or node.items
    return node if has_any else None


def _compile(spec: dict[str, Any], schema: dict[str, Any], crd: str, path: str) -> CelRule:
    text = str(spec.get("rule", ""))
    rule = CelRule(
        crd,
        path,
        text,
        schema,
        message=str(spec.get("message") or ""),
        field_path=str(spec.get("fieldPath") or ""),
        transition=bool(_OLD_SELF.search(text)),
        optional_old_self=bool(spec.get("optionalOldSelf")),
    )
    try:
        rule.program = compile_program(text)
        if spec.get("messageExpression"):
            rule.message_program = compile_program(str(spec["messageExpression"]))
    except Exception as exc:  # CELParseError and lark errors: the rule is recorded, never fatal
        rule.program, rule.compile_error = None, f"does not compile: {exc}".splitlines()[0]
    return rule


Recorder = Callable[[Unsupported], None]


def check(tree: RuleNode | None, obj: dict[str, Any], memo: dict[Any, Any], record: Recorder) -> list[Issue]:
    """Every failing rule of ``obj`` (already pruned and defaulted)."""
    issues: list[Issue] = []
    if tree is not None:
        _visit(tree, _root_view(obj), (), memo, record, issues)
    return issues


def _root_view(obj: dict[str, Any]) -> dict[str, Any]:
    """At the root, CEL sees only metadata.name and metadata.generateName."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return obj
    return {**obj, "metadata": {k: meta[k] for k in ("name", "generateName") if k in meta}}


def _visit(
    node: RuleNode, value: Any, path: tuple[str | int, ...], memo: dict[Any, Any], record: Recorder, issues: list[Issue]
) -> None:
    if node.rules:
        _run_rules(node.rules, value, path, memo, record, issues)
    if isinstance(value, dict):
        for key, item in value.items():
            child = node.props.get(key) or (node.additional if key not in node.props else None)
            if child is not None:
                _visit(child, item, (*path, key), memo, record, issues)
    elif isinstance(value, list) and node.items is not None:
        for index, item in enumerate(value):
            _visit(node.items, item, (*path, index), memo, record, issues)


def _run_rules(
    rules: list[CelRule],
    value: Any,
    path: tuple[str | int, ...],
    memo: dict[Any, Any],
    record: Recorder,
    issues: list[Issue],
) -> None:
    where = FieldPath.of(*path)
    cel_value: Any = None
    fingerprint: bytes | None = b""
    for rule in rules:
        if rule.program is None:
            record(Unsupported(rule.crd, rule.schema_path, rule.rule, rule.compile_error))
            continue
        if not rule.runs_on_create:
            continue
        if fingerprint == b"":
            fingerprint = _fingerprint(value)
        key = (id(rule), fingerprint) if fingerprint is not None else None
        outcome = memo.get(key) if key is not None else None
        if outcome is None:
            cel_value = to_cel(value) if cel_value is None else cel_value
            passed, detail = rule.evaluate(cel_value)
            message = "" if passed or passed is None else rule.failure_message(cel_value)
            outcome = (passed, detail, message)
            if key is not None:
                if len(memo) > _MEMO_LIMIT:
                    memo.clear()
                memo[key] = outcome
        passed, detail, message = outcome
        if passed is None:
            record(Unsupported(rule.crd, rule.schema_path, rule.rule, detail))
        elif not passed:
            text = f"{message} ({detail})" if detail else message
            issues.append(
                Issue(
                    _with_field_path(where, rule.field_path),
                    text,
                    f"change the value so that the CRD rule holds: {rule.rule}",
                )
            )


def _with_field_path(where: FieldPath, field_path: str) -> FieldPath | str:
    """The node's path plus the rule's ``fieldPath`` (``(root)`` for the object itself)."""
    return (where + crd_field_path(field_path) if field_path else where) or "(root)"


_FIELD_STEP = re.compile(r"""\.?([^.\[\]'"]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]""")


def crd_field_path(text: str) -> FieldPath:
    """A CRD rule's ``fieldPath`` (input from the CRD: ``.spec.size``, ``.labels['a.b/c']``, ``.items[0]``) as a FieldPath.

    The one place a path is read from text: Kubernetes gives it only as text (apiextensions
    ``x-kubernetes-validations[].fieldPath``). Steps it cannot read end the path there.
    """
    path, at = FieldPath(), 0
    while at < len(text):
        step = _FIELD_STEP.match(text, at)
        if step is None:
            break
        name, index, single, double = step.groups()
        path = (
            path.child(name)
            if name
            else path.index(int(index))
            if index
            else path.key(single if single is not None else double)
        )
        at = step.end()
    return path


def _fingerprint(value: Any) -> bytes | None:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return None
