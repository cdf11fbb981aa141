"""The one loader of what the rules run with: fleet context, CRDs and per-rule options.

The linter (``gpufleet.cli.lint_run`` with ``gpufleet.lint.context``), the policy pack
(``gpufleet/policypack/settings.py``) and the admission webhook
(``gpufleet.webhook.reload.FleetSource``) all call :func:`load_settings`, which turns the
user's inputs (a fleet model or a fleet-context JSON, a CRD folder, an options mapping)
into one :class:`Settings` and its :class:`~gpufleet.rules.api.CheckContext`.

- Fleet: a model (``*.yaml``: loaded and digested by ``gpufleet.model`` and
  ``gpufleet.render.context``, imported only then) or a context JSON. ``strict=True``
  checks a context against :mod:`gpufleet.fleetctx.contextschema` first (the webhook does: a
  context it cannot trust is refused); the linter and the policy pack stay lenient (a
  partial context that sets only what one rule reads is a documented way to lint).
- CRDs: a folder of CRD files read by ``gpufleet.crdschema.CrdSet`` (imported only then).
- Options: ``{CODE: {key: value}}``; each rule's options class (``Rule.options``,
  declared beside the rule) validates its entry with pydantic in strict JSON mode:
  unknown rule codes, options of a rule that takes none, unknown keys and wrong types
  are errors at ``options.GANG502.floorSeconds``. pydantic is imported only when
  options are given, so a plain lint run stays fast.

Every problem is collected (each at its file and path, with a fix) and raised together
as :class:`SettingsError`; nothing is half-applied.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from gpufleet.fleetctx.context import FleetContext
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.api import CheckContext, CrdSchemas
from gpufleet.util.boundedread import TooLarge, read_bounded
from gpufleet.yamlin.errors import Issue, ModelError


class SettingsError(ModelError):
    """Settings that cannot be used: every problem of every input, each with its own source."""

    def __init__(self, errors: list[ModelError]) -> None:
        self.errors = errors
        super().__init__(errors[0].source if len(errors) == 1 else "settings", [i for e in errors for i in e.issues])

    def lines(self) -> list[str]:
        return [line for error in getattr(self, "errors", ()) for line in error.lines()]


@dataclass(frozen=True)
class Settings:
    """What a run of the rules is configured with (all validated)."""

    fleet: FleetContext | None = None
    crds: CrdSchemas | None = None
    options: Mapping[str, object] = field(default_factory=dict)

    def context(self, objects: tuple[Mapping[str, Any], ...] = ()) -> CheckContext:
        return CheckContext(fleet=self.fleet, options=self.options, crds=self.crds, objects=objects)


def load_settings(
    *,
    model: str | None = None,
    context: str | None = None,
    crds: str | None = None,
    options: Mapping[str, Any] | None = None,
    options_source: str = "options",
    cold_start_floor_seconds: int | None = None,
    strict: bool = False,
) -> Settings:
    """Validate and load every input; :class:`SettingsError` lists every problem found.

    ``model`` is a fleet model file, ``context`` a fleet-context JSON (give at most one);
    ``options_source`` names where ``options`` came from (a config file) in messages;
    ``cold_start_floor_seconds`` overrides the fleet's floor (the policy pack's setting).
    """
    errors: list[ModelError] = []
    fleet = _part(errors, lambda: load_fleet(model=model, context=context, strict=strict))
    if fleet is not None and cold_start_floor_seconds is not None:
        fleet = replace(fleet, cold_start_floor_seconds=cold_start_floor_seconds)
    crd_set = _part(errors, lambda: load_crds(crds)) if crds else None
    validated = _part(errors, lambda: rule_options(options or {}, options_source)) or {}
    if errors:
        raise SettingsError(errors)
    return Settings(fleet=fleet, crds=crd_set, options=validated)


def _part(errors: list[ModelError], load: Any) -> Any:
    try:
        return load()
    except SettingsError as exc:
        errors.extend(exc.errors)
    except ModelError as exc:
        errors.append(exc)
    return None


def load_fleet(*, model: str | None = None, context: str | None = None, strict: bool = False) -> FleetContext | None:
    """The fleet context of a model file or a context JSON (None without either)."""
    if model and context:
        raise ModelError(
            context,
            [
                Issue(
                    "",
                    "give either a fleet model or a fleet context, not both",
                    "drop one of --fleet / --fleet-context",
                )
            ],
        )
    if model:
        return fleet_context_from_model(model)
    return load_fleet_context(context, strict=strict) if context else None


MAX_CONTEXT_BYTES = 8 * 1024 * 1024
"""A fleet context larger than this is refused unread (a ConfigMap holds at most 1 MiB)."""
OPTIONS = FieldPath.of("options")  # where rule options sit in a lint config


def load_fleet_context(path: str, strict: bool = False) -> FleetContext:
    """Read a fleet context JSON file (the shape in ``gpufleet.fleetctx.context``)."""
    try:
        raw = read_bounded(path, MAX_CONTEXT_BYTES, "fleet context")
        data = json.loads(raw)
    except TooLarge as exc:
        raise ModelError(
            path, [Issue("", f"the fleet context is larger than {exc.cap}", "render it again from the fleet model")]
        ) from None
    except OSError as exc:
        raise ModelError(
            path, [Issue("", f"cannot read the fleet context: {exc.strerror or exc}", "check the path")]
        ) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelError(path, [_not_a_context(raw, exc)]) from None
    return fleet_context_from_dict(data, path, strict=strict)


MAKE_CONTEXT = "make one with `gpufleet render MODEL --out DIR` (it writes DIR/context/fleet-context.json)"


def _not_a_context(raw: bytes, exc: Exception) -> Issue:
    """Why ``raw`` is no fleet context: a fleet model given in its place, or simply not JSON."""
    head = raw[:65536].decode("utf-8", "replace")
    if "kind: Fleet" in head or "gpufleet.dev/v1alpha1" in head:
        return Issue(
            "(file)",
            "this is a fleet model (kind: Fleet), but a fleet context (JSON) was expected",
            f"pass the model with --fleet instead of --fleet-context, or {MAKE_CONTEXT}",
        )
    return Issue(
        "(file)", f"not a JSON fleet context ({exc})", f"pass the JSON written by `gpufleet render`; {MAKE_CONTEXT}"
    )


def fleet_context_from_dict(data: Any, source: str, strict: bool = False) -> FleetContext:
    """A FleetContext of a decoded document; ``strict`` checks it against the context schema first."""
    if strict:
        from gpufleet.fleetctx import contextschema

        issues = contextschema.validate(data)
        if issues:
            raise ModelError(source, issues)
    if not isinstance(data, Mapping):
        raise ModelError(
            source,
            [Issue("", "the fleet context must be a JSON object", "see gpufleet.fleetctx.context for its shape")],
        )
    try:
        return FleetContext.from_dict(data)
    except (KeyError, TypeError, ValueError) as exc:
        what = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ModelError(
            source, [Issue("", f"invalid fleet context: {what}", "regenerate it from the fleet model")]
        ) from None


def fleet_context_from_model(path: str) -> FleetContext:
    """Load a fleet model and digest it into a FleetContext (needs the model and render layers)."""
    try:
        from gpufleet.model import load_model
        from gpufleet.render.context import render_context
    except ImportError as exc:
        raise ModelError(
            path,
            [
                Issue(
                    "",
                    f"a fleet model needs the fleet model layer, which is not available ({exc})",
                    "pass a fleet context JSON instead",
                )
            ],
        ) from None
    return fleet_context_from_dict(render_context(load_model(path)), path)


def load_crds(path: str) -> CrdSchemas:
    """A ``gpufleet.crdschema.CrdSet`` of the CRDs under ``path``."""
    if not Path(path).is_dir():
        raise ModelError(
            path, [Issue("", "the CRDs must be a directory of CRD YAML files", "pass a folder such as crds/")]
        )
    try:
        from gpufleet.crdschema import CrdSet
    except ImportError as exc:
        raise ModelError(
            path, [Issue("", f"CRD checks need gpufleet.crdschema, which is not available ({exc})", "upgrade gpufleet")]
        ) from None
    return CrdSet.load(path)


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
