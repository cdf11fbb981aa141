"""The composition root: the one loader of what the rules run with: fleet context, CRDs and per-rule options.

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
- CRDs: :func:`load_crds` is the one owner of which CRD schemas are in force: the schemas
  gpufleet carries (``gpufleet.crdschema.bundle``: the pinned engines and operators), with a
  user's folder of CRD files on top (same group/version/kind: the folder's wins);
  ``bundled_crds=False`` leaves only the folder, and with no folder either the schema rules
  (GANG601, GANG602) stay quiet (``gpufleet lint --no-crds``).
- Options: ``{CODE: {key: value}}``; each rule's options class (``Rule.options``,
  declared beside the rule) validates its entry with pydantic in strict JSON mode:
  unknown rule codes, options of a rule that takes none, unknown keys and wrong types
  are errors at ``options.GANG502.floorSeconds``. pydantic is imported only when
  options are given, so a plain lint run stays fast.

Every problem is collected (each at its file and path, with a fix) and raised together
as :class:`SettingsError`; nothing is half-applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from gpufleet.fleetctx.context import FleetContext
from gpufleet.rules.api import CheckContext, CrdSchemas
from gpufleet.settings.fleet import load_fleet
from gpufleet.settings.options import rule_options
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
    bundled_crds: bool = True,
    options: Mapping[str, Any] | None = None,
    options_source: str = "options",
    cold_start_floor_seconds: int | None = None,
    strict: bool = False,
) -> Settings:
    """Validate and load every input; :class:`SettingsError` lists every problem found.

    ``model`` is a fleet model file, ``context`` a fleet-context JSON (give at most one);
    ``crds`` a folder of CRDs and ``bundled_crds`` whether the carried schemas apply (:func:`load_crds`);
    ``options_source`` names where ``options`` came from (a config file) in messages;
    ``cold_start_floor_seconds`` overrides the fleet's floor (the policy pack's setting).
    """
    errors: list[ModelError] = []
    fleet = _part(errors, lambda: load_fleet(model=model, context=context, strict=strict))
    if fleet is not None and cold_start_floor_seconds is not None:
        fleet = replace(fleet, cold_start_floor_seconds=cold_start_floor_seconds)
    crd_set = _part(errors, lambda: load_crds(crds, bundled=bundled_crds))
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


def load_crds(path: str | None = None, *, bundled: bool = True) -> CrdSchemas | None:
    """The CRD schemas in force: the bundled ones (unless ``bundled`` is False) under ``path``'s CRDs.

    None (the schema rules stay quiet) when neither applies. The bundled files are read on the
    first object of their kind, so a run that meets no custom resource reads none of them.
    """
    if path is None and not bundled:
        return None
    if path is not None and not Path(path).is_dir():
        raise ModelError(
            path, [Issue("", "the CRDs must be a directory of CRD YAML files", "pass a folder such as crds/")]
        )
    try:
        from gpufleet.crdschema.bundle import schemas
    except ImportError as exc:
        raise ModelError(
            path or "gpufleet.crdschema",
            [Issue("", f"CRD checks need gpufleet.crdschema, which is not available ({exc})", "upgrade gpufleet")],
        ) from None
    return schemas(path, bundled=bundled)
