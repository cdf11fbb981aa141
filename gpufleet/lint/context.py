"""Build the linter's CheckContext: fleet context, CRDs and rule options.

Called by the CLI (``--fleet``, ``--fleet-context``, ``--crds``, ``--config``) and by
tests. Every failure raises :class:`gpufleet.errors.ModelError` naming the file, the
field and the fix, never a bare traceback. ``--fleet MODEL`` goes through the model
layer (``gpufleet.model.load_model`` then ``gpufleet.render.context.render_context``),
imported lazily so the linter works before, and without, that layer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from gpufleet import yamllimits
from gpufleet.context import FleetContext
from gpufleet.errors import Issue, ModelError


@dataclass(frozen=True)
class LintConfig:
    """What a ``--config`` file may set; command-line flags override it."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    fleet: str | None = None
    fleet_context: str | None = None
    crds: str | None = None


def _codes(value: Any, source: str, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ModelError(source, [Issue(key, "must be a list of rule codes", f"{key}: [GANG301, GANG4]")])
    return tuple(v.strip() for v in value if v.strip())


def load_config(path: str) -> LintConfig:
    """Read a linter config file (YAML): ``select``, ``ignore``, ``options``, ``fleet``, ``fleetContext``, ``crds``."""
    try:
        data = yamllimits.load(yamllimits.decode(Path(path).read_bytes())) or {}
    except (OSError, ValueError) as exc:
        raise ModelError(path, [Issue("", f"cannot read the config file: {exc}", "check the path")]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ModelError(path, [Issue(f"line {mark.line + 1}" if mark else "", f"malformed YAML: {getattr(exc, 'problem', exc)}", "fix the YAML")]) from None
    if not isinstance(data, Mapping):
        raise ModelError(path, [Issue("", "the config must be a mapping", "write keys such as select:, ignore:, options:")])
    known = {"select", "ignore", "options", "fleet", "fleetContext", "crds"}
    issues = [Issue(str(k), "unknown key", f"use one of {', '.join(sorted(known))}") for k in data if k not in known]
    options = data.get("options") or {}
    if not isinstance(options, Mapping) or not all(isinstance(v, Mapping) for v in options.values()):
        issues.append(Issue("options", "must map rule codes to option maps", "options: {GANG502: {floorSeconds: 900}}"))
    if issues:
        raise ModelError(path, issues)
    base = Path(path).parent

    def rel(key: str) -> str | None:
        return str(base / data[key]) if data.get(key) else None

    return LintConfig(
        select=_codes(data["select"], path, "select") if data.get("select") is not None else None,
        ignore=_codes(data.get("ignore") or [], path, "ignore"),
        options={str(k).upper(): dict(v) for k, v in options.items()},
        fleet=rel("fleet"), fleet_context=rel("fleetContext"), crds=rel("crds"),
    )


def load_fleet_context(path: str) -> FleetContext:
    """Read a fleet context JSON file (the shape in ``gpufleet.context``)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ModelError(path, [Issue("", f"cannot read the fleet context: {exc.strerror or exc}", "check the path")]) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelError(path, [Issue("", f"not a JSON fleet context: {exc}", "pass the JSON written by `gpufleet render` (fleet-context.json)")]) from None
    return _from_dict(data, path)


def _from_dict(data: Any, source: str) -> FleetContext:
    if not isinstance(data, Mapping):
        raise ModelError(source, [Issue("", "the fleet context must be a JSON object", "see gpufleet.context for its shape")])
    try:
        return FleetContext.from_dict(data)
    except (KeyError, TypeError, ValueError) as exc:
        what = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ModelError(source, [Issue("", f"invalid fleet context: {what}", "regenerate it from the fleet model")]) from None


def fleet_context_from_model(path: str) -> FleetContext:
    """Load a fleet model and digest it into a FleetContext (needs the model and render layers)."""
    try:
        from gpufleet.model import load_model
        from gpufleet.render.context import render_context
    except ImportError as exc:
        raise ModelError(path, [Issue("", f"--fleet needs the fleet model layer, which is not available ({exc})",
                                      "pass a fleet context JSON with --fleet-context instead")]) from None
    return _from_dict(render_context(load_model(path)), path)


def load_crds(path: str) -> Any:
    """A ``gpufleet.crdschema.CrdSet`` of the CRDs under ``path``."""
    if not Path(path).is_dir():
        raise ModelError(path, [Issue("", "--crds must name a directory of CRD YAML files", "pass a folder such as crds/")])
    try:
        from gpufleet.crdschema import CrdSet
    except ImportError as exc:
        raise ModelError(path, [Issue("", f"--crds needs gpufleet.crdschema, which is not available ({exc})", "upgrade gpufleet")]) from None
    return CrdSet.load(path)
