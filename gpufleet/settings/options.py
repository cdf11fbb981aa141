"""Per-rule options: ``{CODE: {key: value}}`` validated against each rule's options class.

Called by :func:`gpufleet.settings.load.load_settings` (the linter's config, the policy
pack's config) and by tests that build a rule's options. Each rule's options class
(``Rule.options``, declared beside the rule) validates its entry with pydantic in strict
JSON mode: unknown rule codes, options of a rule that takes none, unknown keys and wrong
types are errors at ``options.GANG502.floorSeconds``. pydantic and the rule registry are
imported only when options are given, so a plain lint run stays fast.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.yamlin.errors import Issue, ModelError

OPTIONS = FieldPath.of("options")  # where rule options sit in a lint config


def rule_options(raw: Mapping[str, Any], source: str = "options") -> dict[str, object]:
    """Each rule's options object from ``{CODE: {key: value}}``; :class:`ModelError` lists every bad entry."""
    if not raw:
        return {}
    from gpufleet.rules import registry

    issues: list[Issue] = []
    out: dict[str, object] = {}
    if not isinstance(raw, Mapping):
        raise ModelError(
            source, [Issue(OPTIONS, "must map rule codes to option maps", "options: {GANG502: {floorSeconds: 900}}")]
        )
    for key, value in raw.items():
        code = str(key).upper()
        rule = registry.REGISTRY.get(code)
        where = OPTIONS.child(str(key))
        if rule is None:
            issues.append(Issue(where, f"unknown rule code {key!r}", "use a code from `gpufleet rules` (GANG502)"))
        elif rule.options is None:
            issues.append(
                Issue(
                    where,
                    f"{code} takes no options",
                    f"remove options.{key}; see docs/rules.md for the rules that take options",
                )
            )
        elif not isinstance(value, Mapping):
            issues.append(
                Issue(
                    where,
                    "must be a map of option names to values",
                    f"{where}: {{{option_names(rule.options)[0]}: ...}}",
                )
            )
        else:
            validated, problems = _validate(rule.options, value, where)
            issues += problems
            if validated is not None:
                out[code] = validated
    if issues:
        raise ModelError(source, issues)
    return out


def option_names(model: type) -> list[str]:
    """The camelCase keys of an options class, in declaration order."""
    config = getattr(model, "__pydantic_config__", {})
    rename = config.get("alias_generator") or (lambda n: n)
    return [rename(name) for name in model.__dataclass_fields__]  # type: ignore[attr-defined]  # model is a dataclass type (the rule options): dataclasses sets __dataclass_fields__


def _validate(model: type, value: Mapping[str, Any], where: FieldPath) -> tuple[object | None, list[Issue]]:
    from pydantic import TypeAdapter, ValidationError

    try:
        text = json.dumps(dict(value), default=str)
        return TypeAdapter(model).validate_json(text), []
    except ValidationError as exc:
        names = ", ".join(option_names(model))
        return None, [_issue(where, error, names) for error in exc.errors(include_url=False)]


def _issue(where: FieldPath, error: Mapping[str, Any], names: str) -> Issue:
    path = where
    for part in error["loc"]:
        path = path.index(part) if isinstance(part, int) else path.child(str(part))
    if error["type"] == "unexpected_keyword_argument":
        return Issue(path, "unknown option", f"use one of {names}")
    return Issue(path, str(error["msg"]), f"see the options of {where.last} in docs/rules.md ({names})")
