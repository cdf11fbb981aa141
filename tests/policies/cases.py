"""The rule fixtures (tests/rules/fixtures) as the policy pack receives them: resources plus pack config.

Each fixture runs in the linter with a fleet context, rule options and maybe CRDs
(``tests.rules.fixtures.context``); the pack gets the same through its policy config
(``fleetModel`` = the fixture's fleet-context.json, rule options as extra keys, the CRD
schemas gpufleet carries for a fixture with ``crds: true`` and ``noCrds`` for the others).
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from typing import Any

from gpufleet.fleetctx.context import FleetContext
from gpufleet.policypack.build import policy_name, stack_policy_name
from gpufleet.policypack.stack import scopes
from gpufleet.rules import engine, registry
from gpufleet.rules.api import CheckContext
from gpufleet.settings import load_crds, rule_options
from gpufleet.yamlin import yamlio
from tests.policies.harness import Resource
from tests.rules import fixtures as fx

CODES = [code for code in registry.REGISTRY if (fx.FIXTURES / code / "disallowed.yaml").exists()]
REMEDIABLE = [code for code in CODES if registry.get(code).remediate is not None]


def policy_names(code: str) -> set[str]:
    rule = registry.get(code)
    return {policy_name(rule)} | ({stack_policy_name(rule)} if scopes(rule) else set())


def _settings(code: str) -> dict[str, Any]:
    file = fx.FIXTURES / code / "context.yaml"
    return (yamlio.load(file.read_text()) if file.exists() else None) or {}


def _fleet_file(code: str):
    own = fx.FIXTURES / code / "fleet-context.json"
    return own if own.exists() else fx.FIXTURES / "fleet-context.json"


@lru_cache(maxsize=1)
def _crds() -> Any:
    return load_crds()


def context(code: str) -> CheckContext:
    """``tests.rules.fixtures.context`` (same settings), with the CRDs loaded once per session."""
    settings = _settings(code)
    fleet = FleetContext.from_dict(json.loads(_fleet_file(code).read_text())) if settings.get("fleet", True) else None
    return CheckContext(
        fleet=fleet, options=rule_options(settings.get("options") or {}), crds=_crds() if settings.get("crds") else None
    )


def pack_config(code: str, level: str | None = None) -> dict[str, Any]:
    """The ``--policy-pack-config`` equivalent of the fixture's context, for the rule's policies."""
    settings = _settings(code)
    props: dict[str, Any] = dict((settings.get("options") or {}).get(code) or {})
    if settings.get("fleet", True):
        props["fleetModel"] = str(_fleet_file(code))
    if not settings.get("crds"):
        props["noCrds"] = True
    if level:
        props["enforcementLevel"] = level
    return {name: dict(props) for name in policy_names(code)}


def resources(code: str, name: str) -> list[Resource]:
    return [
        Resource.of(doc, f"{i}-{(doc.get('metadata') or {}).get('name', 'doc')}")
        for i, doc in enumerate(fx.documents(code, name))
    ]


def engine_findings(code: str, name: str, alone: bool = False) -> list[tuple[str, str]]:
    """(code, path) of the unwaived findings the linter reports for a fixture file (each document alone if asked)."""
    docs, ctx = fx.documents(code, name), context(code)
    if alone:
        found = [f for doc in docs for f in engine.check_object(doc, replace(ctx, objects=()), select=[code])]
    else:
        found = engine.check_objects(docs, ctx, select=[code])
    return sorted((f.code, f.path) for f in found if not f.waived)
