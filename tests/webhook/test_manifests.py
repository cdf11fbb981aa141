"""Real manifests through the webhook: upstream examples and the rule fixtures.

The webhook must say what the engine says (it runs it unchanged), after the
mutator has run as the API server orders it (mutating webhooks before validating).
"""

from __future__ import annotations

import copy
from pathlib import Path

import orjson
import pytest

from gpufleet.rules import engine
from gpufleet.webhook.handlers import build_registry
from gpufleet.webhook.registry import serve
from gpufleet.yamlin import yamlio
from tests.mutate.builders import TEAM_NS, upstream_documents
from tests.webhook.reviews import apply, response_of, review
from tests.webhook.test_serve import ready_state

FIXTURES = Path(__file__).resolve().parents[1] / "rules" / "fixtures"
REGISTRY = build_registry()
WEBHOOK_SILENT = {"GANG000"}  # linter-only (a file that does not load)


def admit(obj: dict, state) -> tuple[dict, dict, dict]:
    """(mutate response, patched object, validate response) as the API server would chain them."""
    mutated = response_of(orjson.loads(serve(REGISTRY, state, "/mutate", orjson.dumps(review(obj))).body))
    fixed = apply(obj, mutated)
    validated = response_of(orjson.loads(serve(REGISTRY, state, "/validate", orjson.dumps(review(fixed))).body))
    return mutated, fixed, validated


def disagreement(where: str, obj: dict, validated: dict, state) -> list[str]:
    findings = engine.check_object(obj, state.check)
    blocking = [f for f in findings if f.blocking]
    problems = []
    if validated["allowed"] == bool(blocking):
        problems.append(f"{where}: allowed={validated['allowed']} but engine blocking={[f.code for f in blocking]}")
    message = validated.get("status", {}).get("message", "")
    problems += [
        f"{where}: {f.code} {f.path} (with its fix) missing from the denial"
        for f in blocking
        if f"{f.code} {f.name} at {f.path}: {f.message} Fix: {f.fix}" not in message
    ]
    warned = [f for f in findings if not f.blocking and not f.waived]
    if len(validated.get("warnings", [])) != len(warned):
        problems.append(f"{where}: {len(validated.get('warnings', []))} warnings for {len(warned)} advisory findings")
    return problems


def test_upstream_manifests_in_a_team_namespace_are_answered_as_the_engine_judges_them(upstream_dir):
    state, problems, results = ready_state(), [], {"patched": 0, "denied": 0}
    for where, doc in upstream_documents(upstream_dir):
        obj = copy.deepcopy(doc)
        obj.setdefault("metadata", {})["namespace"] = TEAM_NS
        mutated, fixed, validated = admit(obj, state)
        results["patched"] += "patch" in mutated
        results["denied"] += not validated["allowed"]
        problems += disagreement(where, fixed, validated, state)
        if "patch" in admit(fixed, state)[0]:
            problems.append(f"{where}: the patched object is patched again")
    assert not problems, "\n".join(problems)
    assert results["patched"] >= 10 and results["denied"] >= 1, results


def fixture_files() -> list[Path]:
    return sorted(FIXTURES.glob("*/*allowed.yaml")) if FIXTURES.is_dir() else []


@pytest.mark.skipif(not fixture_files(), reason="tests/rules/fixtures is not written yet")
@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_rule_fixture_is_answered_as_the_engine_judges_it(path):
    state, problems = ready_state(), []
    for doc in yamlio.load_documents(path.read_text()):
        if not isinstance(doc.value, dict):
            continue
        validated = response_of(orjson.loads(serve(REGISTRY, state, "/validate", orjson.dumps(review(doc.value))).body))
        problems += disagreement(f"{path.name}:{doc.line}", doc.value, validated, state)
    assert not problems, "\n".join(problems)


@pytest.mark.skipif(not fixture_files(), reason="tests/rules/fixtures is not written yet")
def test_every_disallowed_fixture_of_a_blocking_rule_is_denied_with_its_code():
    state, problems = ready_state(), []
    for path in sorted(FIXTURES.glob("*/disallowed.yaml")):
        code = path.parent.name
        if code in WEBHOOK_SILENT:
            continue
        for doc in yamlio.load_documents(path.read_text()):
            if not isinstance(doc.value, dict):
                continue
            codes = {f.code for f in engine.check_object(doc.value, state.check) if f.blocking}
            if code not in codes:
                continue  # a warning rule, or a fleet-aware rule whose fixture needs another fleet
            validated = response_of(
                orjson.loads(serve(REGISTRY, state, "/validate", orjson.dumps(review(doc.value))).body)
            )
            if validated["allowed"] or code not in validated["status"]["message"]:
                problems.append(f"{path}:{doc.line}: not denied with {code}")
    assert not problems, "\n".join(problems)


# Rules whose every disallowed document the controller must deny after its own mutation (each fixture
# has a fleet context of its own, e.g. the dev stack's): what the linter and the pack report, admission refuses.
DENIED_AFTER_MUTATION = ("GANG108",)


def own_context_fixtures() -> list[Path]:
    return [FIXTURES / code / name for code in DENIED_AFTER_MUTATION for name in ("allowed.yaml", "disallowed.yaml")]


@pytest.mark.parametrize("path", own_context_fixtures(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_fixture_with_its_own_fleet_is_denied_by_its_rule_after_mutation_exactly_when_the_linter_reports_it(path):
    from gpufleet.fleetctx.context import FleetContext

    state = ready_state()
    state.use_fleet(FleetContext.from_dict(orjson.loads((path.parent / "fleet-context.json").read_bytes())))
    code, problems = path.parent.name, []
    for doc in yamlio.load_documents(path.read_text()):
        if not isinstance(doc.value, dict):
            continue
        _, fixed, validated = admit(copy.deepcopy(doc.value), state)
        denied_for_rule = f"{code} " in validated.get("status", {}).get("message", "")
        if denied_for_rule != (path.name == "disallowed.yaml"):
            problems.append(f"{path.name}:{doc.line}: {code} in the denial: {denied_for_rule}")
        problems += disagreement(f"{path.name}:{doc.line}", fixed, validated, state)
    assert not problems, "\n".join(problems)


def test_the_controller_checks_against_the_carried_crd_schemas():
    job = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "train", "namespace": TEAM_NS},
        "spec": {"minAvailable": "four", "tasks": [{"name": "w", "replicas": 4, "template": {}}]},
    }
    validated = response_of(orjson.loads(serve(REGISTRY, ready_state(), "/validate", orjson.dumps(review(job))).body))
    assert not validated["allowed"] and "GANG601" in validated["status"]["message"]
