"""The linter's config file (``--config``): which rules, their options, the fleet and CRD paths.

Called by the CLI (``gpufleet.cli.lint_run``), which hands the paths and the options to
:func:`gpufleet.settings.load_settings` (the one loader the policy pack and the webhook
also use; it validates each rule's options against the rule's options class). Every
failure raises :class:`gpufleet.yamlin.errors.ModelError` naming the file, the field and the
fix, never a bare traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.yamlin import yamllimits
from gpufleet.yamlin.errors import Issue, ModelError


@dataclass(frozen=True)
class LintConfig:
    """What a ``--config`` file may set; command-line flags override it."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    fleet: str | None = None
    fleet_context: str | None = None
    crds: str | None = None
    no_crds: bool = False  # ``crds: false``: the schema rules are off (as ``--no-crds``)


def _codes(value: Any, source: str, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ModelError(source, [Issue(FieldPath.of(key), "must be a list of rule codes", f"{key}: [GANG301, GANG4]")])
    codes = tuple(v.strip() for v in value if v.strip())
    from gpufleet.lint.runner import unknown_codes

    unknown = unknown_codes([c.upper() for c in codes])
    if unknown:
        raise ModelError(
            source,
            [
                Issue(
                    FieldPath.of(key),
                    f"unknown rule code(s) {', '.join(unknown)}",
                    "use codes or prefixes that `gpufleet rules` lists (GANG301, GANG4)",
                )
            ],
        )
    return codes


def load_config(path: str) -> LintConfig:
    """Read a linter config file (YAML): ``select``, ``ignore``, ``options``, ``fleet``, ``fleetContext``, ``crds``."""
    try:
        data = yamllimits.load(yamllimits.decode(Path(path).read_bytes())) or {}
    except (OSError, ValueError) as exc:
        raise ModelError(
            path,
            [
                Issue(
                    "(file)", f"cannot read the config file: {getattr(exc, 'strerror', None) or exc}", "check the path"
                )
            ],
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ModelError(
            path,
            [
                Issue(
                    f"line {mark.line + 1}" if mark else "",
                    f"malformed YAML: {getattr(exc, 'problem', exc)}",
                    "fix the YAML",
                )
            ],
        ) from None
    if not isinstance(data, Mapping):
        raise ModelError(
            path, [Issue("", "the config must be a mapping", "write keys such as select:, ignore:, options:")]
        )
    if "kind" in data and "apiVersion" in data:  # a manifest or a fleet model given as the config
        raise ModelError(
            path,
            [
                Issue(
                    "(file)",
                    f"this is a {data['kind']} ({data['apiVersion']}), not a linter config",
                    "pass the linter config (keys such as select:, ignore:, options:, fleet:); "
                    "a fleet model goes to --fleet",
                )
            ],
        )
    known = {"select", "ignore", "options", "fleet", "fleetContext", "crds"}
    issues = [
        Issue(FieldPath.of(str(k)), "unknown key", f"use one of {', '.join(sorted(known))}")
        for k in data
        if k not in known
    ]
    options = data.get("options") or {}
    if not isinstance(options, Mapping) or not all(isinstance(v, Mapping) for v in options.values()):
        issues.append(
            Issue(
                FieldPath.of("options"), "must map rule codes to option maps", "options: {GANG502: {floorSeconds: 900}}"
            )
        )
    if issues:
        raise ModelError(path, issues)
    base = Path(path).parent

    def rel(key: str) -> str | None:
        return str(base / data[key]) if data.get(key) else None

    return LintConfig(
        select=_codes(data["select"], path, "select") if data.get("select") is not None else None,
        ignore=_codes(data.get("ignore") or [], path, "ignore"),
        options={str(k).upper(): dict(v) for k, v in options.items()},
        fleet=rel("fleet"),
        fleet_context=rel("fleetContext"),
        crds=rel("crds"),
        no_crds=data.get("crds") is False,
    )
