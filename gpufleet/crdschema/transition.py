"""CEL transition rules (``oldSelf``): what the API server checks on UPDATE and not on create.

Called by :meth:`gpufleet.crdschema.CrdSet.validate_update` (used by ``gpufleet diff``
to judge an in-place update). As on the API server (KEP-2876, "transition rules"):

- a rule that mentions ``oldSelf`` runs only where the node exists in both the old and
  the new object ("correlatable"), with ``self`` = new value and ``oldSelf`` = old value;
- object properties and map entries (``additionalProperties``) correlate by key; list
  items are not correlated here (the API server correlates only ``x-kubernetes-list-type:
  map`` items: a rule inside such a list is not checked, and that is recorded);
- ``optionalOldSelf`` rules also run; their ``oldSelf`` is the old value.

Non-transition rules are left to :meth:`CrdSet.validate` (run on the new object).
"""

from __future__ import annotations

from typing import Any

from gpufleet.crdschema.cel import RuleNode, Unsupported, _root_view, _with_field_path
from gpufleet.crdschema.cel.ext import EVAL_ERRORS, to_cel
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.yamlin.errors import Issue


def check_update(tree: RuleNode | None, old: dict[str, Any], new: dict[str, Any], record) -> list[Issue]:
    """Every failing transition rule of an update from ``old`` to ``new`` (both normalized)."""
    issues: list[Issue] = []
    if tree is not None:
        _visit(tree, _root_view(old), _root_view(new), (), record, issues)
    return issues


def _visit(node: RuleNode, old: Any, new: Any, path: tuple, record, issues: list[Issue]) -> None:
    for rule in node.rules:
        if rule.transition and rule.program is not None:
            _run(rule, old, new, path, record, issues)
    if isinstance(old, dict) and isinstance(new, dict):
        for key, item in new.items():
            if key not in old:
                continue
            child = node.props.get(key) or (node.additional if key not in node.props else None)
            if child is not None:
                _visit(child, old[key], item, (*path, key), record, issues)
    elif isinstance(new, list) and node.items is not None and any(r.transition for r in node.items.walk()):
        record(
            Unsupported(
                node.items.rules[0].crd if node.items.rules else "",
                str(FieldPath.of(*path)) or "(root)",
                "transition rules inside list items",
                "list items are not correlated",
            )
        )


def _run(rule, old: Any, new: Any, path: tuple, record, issues: list[Issue]) -> None:
    try:
        passed = rule.program.evaluate({"self": to_cel(new), "oldSelf": to_cel(old)})
    except EVAL_ERRORS as exc:
        record(Unsupported(rule.crd, rule.schema_path, rule.rule, str(exc).split(" (in activation")[0]))
        return
    except Exception as exc:  # cel-python raises plain Python errors on some unsupported paths
        record(Unsupported(rule.crd, rule.schema_path, rule.rule, f"{type(exc).__name__}: {exc}"))
        return
    if not bool(passed):
        where = FieldPath.of(*path)
        message = rule.message or f"failed rule: {rule.rule}"
        issues.append(
            Issue(
                _with_field_path(where, rule.field_path),
                message,
                f"this field cannot change in place (CRD rule: {rule.rule}); replace the object",
            )
        )
