"""Analyze and AnalyzeStack on every rule fixture report exactly what the engine finds in it."""

from __future__ import annotations

import pytest

from tests.policies import cases


def pack_findings(pack, code, name):
    """(code, path) of the rule's violations: Analyze per document, plus AnalyzeStack over the whole file."""
    own = cases.policy_names(code)
    resources = cases.resources(code, name)
    diagnostics = [d for r in resources for d in pack.analyze(r)] + pack.analyze_stack(resources)
    return sorted(pair for d in diagnostics if d.policy in own for pair in d.violations), diagnostics


@pytest.mark.parametrize("code", cases.CODES)
def test_a_disallowed_fixture_gets_exactly_the_engines_findings_at_the_rules_default_level(configured, code):
    with configured(cases.pack_config(code)) as pack:
        found, diagnostics = pack_findings(pack, code, "disallowed.yaml")
        default = {pack.default_levels[name] for name in cases.policy_names(code)}
    expected = cases.engine_findings(code, "disallowed.yaml")
    assert expected and found == expected
    assert {d.level for d in diagnostics if d.policy in cases.policy_names(code)} == default


@pytest.mark.parametrize("code", cases.CODES)
def test_an_allowed_fixture_gets_no_violation_of_its_rule(configured, code):
    with configured(cases.pack_config(code)) as pack:
        found, _ = pack_findings(pack, code, "allowed.yaml")
    assert found == cases.engine_findings(code, "allowed.yaml") == []


@pytest.mark.parametrize("code", cases.CODES)
def test_each_resource_alone_gets_the_engines_findings_of_that_object_alone(configured, code):
    with configured(cases.pack_config(code)) as pack:
        own = cases.policy_names(code)
        found = sorted(
            pair
            for r in cases.resources(code, "disallowed.yaml")
            for d in pack.analyze(r)
            if d.policy in own
            for pair in d.violations
        )
    assert found == cases.engine_findings(code, "disallowed.yaml", alone=True)
