"""A policy's configuration -> the engine's ``CheckContext``.

Called by ``build`` and ``stack`` for every policy run. Each policy accepts the same
few settings (``config_schema`` declares them, the CLI validates them):

- ``fleetModel``: a fleet model (``stacks/dev.fleet.yaml``) or a rendered fleet context
  (``*.json``); without it the stack config ``gpufleet:model`` (the pack process gets
  the stack's config as ``PULUMI_CONFIG``) is used. Relative paths are tried against
  the working directory and the project root (the pack directory's parent). With a
  fleet, the fleet-aware rules (GANG104, GANG105, GANG402, GANG403) run.
- ``coldStartFloorSeconds``: the gang cold-start floor (GANG502's ``floorSeconds``; it
  also overrides the fleet context's floor).
- ``crdsDir``: CRDs for the schema rules (GANG601, GANG602).
- any other key is a rule option handed to the engine as ``options[CODE]``.

Models, contexts and CRD sets are cached per (path, modification time).
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import pulumi.runtime

from gpufleet.context import FleetContext
from gpufleet.errors import ModelError
from gpufleet.rules.api import CheckContext

PACK_DIR = Path(__file__).resolve().parent.parent
PROJECT_DIR = PACK_DIR.parent
STACK_MODEL_KEY = "gpufleet:model"
RESERVED = frozenset({"enforcementLevel", "fleetModel", "coldStartFloorSeconds", "crdsDir"})


class SettingsError(ValueError):
    """A setting that cannot be used; the message names the setting, the file and the fix."""


def resolve(setting: str, value: str) -> Path:
    """An existing path for a relative or absolute setting value (cwd first, then the project root)."""
    path = Path(value).expanduser()
    candidates = [path] if path.is_absolute() else [Path.cwd() / path, PROJECT_DIR / path]
    for candidate in candidates:
        if candidate.exists():
            return candidate.resolve()
    tried = ", ".join(str(c) for c in candidates)
    raise SettingsError(f"{setting}: {value} does not exist (tried {tried}); fix the path in the policy config or the stack config")


def model_setting(config: Mapping[str, Any]) -> tuple[str, str] | None:
    """(setting name, path) of the fleet model to use, or None when neither the policy nor the stack names one."""
    if config.get("fleetModel"):
        return "fleetModel", str(config["fleetModel"])
    stack_model = pulumi.runtime.get_config(STACK_MODEL_KEY)
    return (f"stack config {STACK_MODEL_KEY}", str(stack_model)) if stack_model else None


def load_fleet(setting: str, value: str) -> FleetContext:
    path = resolve(setting, value)
    return _load_fleet(str(path), path.stat().st_mtime_ns)


@lru_cache(maxsize=8)
def _load_fleet(path: str, _mtime: int) -> FleetContext:
    try:
        if path.endswith(".json"):
            return FleetContext.from_dict(json.loads(Path(path).read_text()))
        from gpufleet.model import load_model
        from gpufleet.render.context import render_context
        return FleetContext.from_dict(render_context(load_model(path)))
    except ModelError as exc:
        raise SettingsError(f"fleet model {path} is invalid:\n" + "\n".join(exc.lines())) from None
    except (ValueError, KeyError, TypeError) as exc:
        raise SettingsError(f"fleet context {path} cannot be read: {exc}; regenerate it with `gpufleet plan`") from None


def load_crds(value: str) -> Any:
    path = resolve("crdsDir", value)
    return _load_crds(str(path), path.stat().st_mtime_ns)


@lru_cache(maxsize=4)
def _load_crds(path: str, _mtime: int) -> Any:
    from gpufleet.crdschema import CrdSet
    try:
        return CrdSet.load(path)
    except ModelError as exc:
        raise SettingsError(f"crdsDir {path} cannot be loaded:\n" + "\n".join(exc.lines())) from None


def rule_options(code: str, config: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    options = {k: v for k, v in config.items() if k not in RESERVED}
    if config.get("coldStartFloorSeconds") is not None:
        options.setdefault("floorSeconds", int(config["coldStartFloorSeconds"]))
    return {code: options} if options else {}


def check_context(code: str, config: Mapping[str, Any] | None) -> CheckContext:
    """The engine context for one policy run of rule ``code``; raises :class:`SettingsError`."""
    config = dict(config or {})
    fleet = None
    named = model_setting(config)
    if named is not None:
        fleet = load_fleet(*named)
        if config.get("coldStartFloorSeconds") is not None:
            fleet = replace(fleet, cold_start_floor_seconds=int(config["coldStartFloorSeconds"]))
    crds = load_crds(str(config["crdsDir"])) if config.get("crdsDir") else None
    return CheckContext(fleet=fleet, options=rule_options(code, config), crds=crds)
