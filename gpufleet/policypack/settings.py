"""A policy's configuration -> the engine's ``CheckContext``.

Called by ``build`` and ``stack`` for every policy run. Each policy accepts the same
few settings (``config_schema`` declares them, the CLI validates them):

- ``fleetModel``: a fleet model (``stacks/dev.fleet.yaml``) or a rendered fleet context
  (``*.json``); without it the stack config ``gpufleet:model`` (the pack process gets
  the stack's config as ``PULUMI_CONFIG``) is used. Relative paths are tried against
  the previewed Pulumi project's folder (:mod:`gpufleet.policypack.project`: a pack folder may
  sit beside the project), then the working directory and its parent (Pulumi starts the pack in
  its directory, ``policies/`` of the repository or the folder ``gpufleet policy-pack DIR`` wrote). With a
  fleet, the fleet-aware rules (GANG104, GANG105, GANG402, GANG403) run.
- ``coldStartFloorSeconds``: the gang cold-start floor (GANG502's ``floorSeconds``; it
  also overrides the fleet context's floor).
- ``crdsDir``: CRDs for the schema rules (GANG601, GANG602), on top of the schemas gpufleet
  carries (same group/version/kind: the folder's wins); ``noCrds: true`` turns the schema
  rules off (neither the carried schemas nor a folder).
- any other key is an option of the policy's rule (``floorSeconds`` for GANG502),
  validated by the rule's options class: an unknown key or a wrong type is an error
  naming the key and the fix (the policy reports it and does not run).

Everything goes through :func:`gpufleet.settings.load_settings`, the loader the linter and
the admission controller use too; results are cached per (paths, modification times, options).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import pulumi.runtime

from gpufleet.policypack.project import project_roots
from gpufleet.rules import registry
from gpufleet.rules.api import CheckContext
from gpufleet.settings import Settings, load_settings, option_names
from gpufleet.yamlin.errors import ModelError

STACK_MODEL_KEY = "gpufleet:model"
RESERVED = frozenset({"enforcementLevel", "fleetModel", "coldStartFloorSeconds", "crdsDir", "noCrds"})


class SettingsError(ValueError):
    """A setting that cannot be used; the message names the setting, the file and the fix."""


def resolve(setting: str, value: str) -> Path:
    """An existing path for a relative or absolute setting value: against the previewed project's folder
    (:func:`gpufleet.policypack.project.project_roots`), then the working directory (the pack's folder) and its
    parent (a pack folder inside the project, as ``policies/``)."""
    path = Path(value).expanduser()
    if path.is_absolute():
        candidates = [path]
    else:
        folders = [*project_roots(), Path.cwd(), Path.cwd().parent]
        candidates = list(dict.fromkeys(folder / path for folder in folders))
    for candidate in candidates:
        if candidate.exists():
            return candidate.resolve()
    tried = ", ".join(str(c) for c in candidates)
    raise SettingsError(
        f"{setting}: {value} does not exist (tried {tried}); fix the path in the policy config or the stack config"
    )


def model_setting(config: Mapping[str, Any]) -> tuple[str, str] | None:
    """(setting name, path) of the fleet model to use, or None when neither the policy nor the stack names one."""
    if config.get("fleetModel"):
        return "fleetModel", str(config["fleetModel"])
    stack_model = pulumi.runtime.get_config(STACK_MODEL_KEY)
    return (f"stack config {STACK_MODEL_KEY}", str(stack_model)) if stack_model else None


def _paths(config: Mapping[str, Any]) -> dict[str, str | None]:
    """``load_settings``'s path arguments: the fleet (model or ``*.json`` context) and the CRD folder."""
    out: dict[str, str | None] = {"model": None, "context": None, "crds": None}
    named = model_setting(config)
    if named is not None:
        path = str(resolve(*named))
        out["context" if path.endswith(".json") else "model"] = path
    if config.get("crdsDir"):
        out["crds"] = str(resolve("crdsDir", str(config["crdsDir"])))
    return out


def rule_options(code: str, config: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The policy config's rule options for ``code`` (every key the pack does not reserve)."""
    options = {k: v for k, v in config.items() if k not in RESERVED}
    rule = registry.get(code)
    floor = config.get("coldStartFloorSeconds")
    if floor is not None and rule.options is not None and "floorSeconds" in option_names(rule.options):
        options.setdefault("floorSeconds", int(floor))
    return {code: options} if options else {}


def check_context(code: str, config: Mapping[str, Any] | None) -> CheckContext:
    """The engine context for one policy run of rule ``code``; raises :class:`SettingsError`."""
    config = dict(config or {})
    no_crds = bool(config.get("noCrds"))
    if no_crds and config.get("crdsDir"):
        raise SettingsError("give either crdsDir or noCrds: true in the policy config, not both")
    paths = _paths(config)
    stamps = tuple(Path(p).stat().st_mtime_ns if p else 0 for p in paths.values())
    floor = config.get("coldStartFloorSeconds")
    options = json.dumps(rule_options(code, config), sort_keys=True)
    return _load(
        code,
        paths["model"],
        paths["context"],
        paths["crds"],
        stamps,
        options,
        int(floor) if floor is not None else None,
        not no_crds,
    ).context()


@lru_cache(maxsize=16)
def _load(
    code: str,
    model: str | None,
    context: str | None,
    crds: str | None,
    _stamps: tuple[int, ...],
    options: str,
    floor: int | None,
    bundled_crds: bool = True,
) -> Settings:
    try:
        return load_settings(
            model=model,
            context=context,
            crds=crds,
            bundled_crds=bundled_crds,
            options=json.loads(options),
            options_source=f"policy config of {code}",
            cold_start_floor_seconds=floor,
        )
    except ModelError as exc:
        raise SettingsError(
            "\n".join(_explain(error, model, context, crds) for error in getattr(exc, "errors", [exc]))
        ) from None


def _explain(error: ModelError, model: str | None, context: str | None, crds: str | None) -> str:
    if error.source == model:
        return f"fleet model {model} is invalid:\n" + "\n".join(error.lines())
    if error.source == context:
        what = "; ".join((f"{i.path}: " if i.path else "") + i.message for i in error.issues)
        return f"fleet context {context} cannot be read: {what}; regenerate it with `gpufleet render MODEL --out DIR` (DIR/context/fleet-context.json)"
    if error.source == crds:
        return f"crdsDir {crds} cannot be loaded:\n" + "\n".join(error.lines())
    return "\n".join(error.lines()) + " (fix the policy config: each rule accepts only the options docs/rules.md lists)"
