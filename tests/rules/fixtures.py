"""Loading the rule fixtures: ``tests/rules/fixtures/<CODE>/{allowed,disallowed,expected}.yaml``.

Each fixture runs with a fleet context: ``<CODE>/fleet-context.json`` if present,
else the shared ``fixtures/fleet-context.json``. An optional ``<CODE>/context.yaml``
adds ``options: {CODE: {key: value}}``, ``fleet: false`` (run without a fleet) and
``crds: true`` (check the CRD schemas gpufleet carries, ``gpufleet.settings.load_crds``). Every
document of a file is in ``ctx.objects`` (the linter checks a file's documents together).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpufleet.fleetctx.context import FleetContext
from gpufleet.rules.api import CheckContext, Finding
from gpufleet.settings import load_crds, rule_options
from gpufleet.yamlin import yamlio

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FILES = ("allowed.yaml", "disallowed.yaml", "expected.yaml")


def context(code: str) -> CheckContext:
    folder = FIXTURES / code
    settings_file = folder / "context.yaml"
    settings = (yamlio.load(settings_file.read_text()) if settings_file.exists() else None) or {}
    fleet_file = folder / "fleet-context.json"
    if not fleet_file.exists():
        fleet_file = FIXTURES / "fleet-context.json"
    fleet = FleetContext.from_dict(json.loads(fleet_file.read_text())) if settings.get("fleet", True) else None
    crds = load_crds() if settings.get("crds") else None
    return CheckContext(fleet=fleet, options=rule_options(settings.get("options") or {}), crds=crds)


def documents(code: str, name: str) -> list[dict[str, Any]]:
    text = (FIXTURES / code / name).read_text()
    return [d.value for d in yamlio.load_documents(text) if isinstance(d.value, dict)]


def expected(code: str) -> list[tuple[str, str, str, str]]:
    rows = yamlio.load((FIXTURES / code / "expected.yaml").read_text()) or []
    return sorted((r["code"], r["kind"], str(r["name"]), r["path"]) for r in rows)


def key(finding: Finding) -> tuple[str, str, str, str]:
    return (finding.code, finding.kind, str(finding.object_name), finding.path)
