"""Every registered rule against its fixtures: allowed has none of its findings, disallowed exactly the expected ones.

Also: remediating each disallowed document (for rules that can remediate) leaves
no finding of that rule.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpufleet.rules import engine, registry
from tests.rules import fixtures as fx

CODES = [code for code in registry.REGISTRY if (fx.FIXTURES / code / "disallowed.yaml").exists()]
REMEDIABLE = [code for code in CODES if registry.get(code).remediate is not None]


def run(code: str, name: str):
    return engine.check_objects(fx.documents(code, name), fx.context(code), select=[code])


@pytest.mark.parametrize("code", CODES)
def test_the_allowed_fixture_has_no_finding_of_its_rule(code):
    assert [fx.key(f) for f in run(code, "allowed.yaml")] == []


@pytest.mark.parametrize("code", CODES)
def test_the_disallowed_fixture_has_exactly_the_expected_findings(code):
    assert sorted(fx.key(f) for f in run(code, "disallowed.yaml")) == fx.expected(code)


@pytest.mark.parametrize("code", CODES)
def test_the_disallowed_fixture_is_not_waived_and_expects_at_least_one_finding(code):
    assert fx.expected(code)
    assert not any(f.waived for f in run(code, "disallowed.yaml"))


@pytest.mark.parametrize("code", REMEDIABLE)
def test_remediating_the_disallowed_fixture_leaves_no_finding_of_its_rule(code):
    docs, ctx = fx.documents(code, "disallowed.yaml"), fx.context(code)
    fixed = [engine.remediate(doc, replace(ctx, objects=tuple(docs)), select=[code]) for doc in docs]
    remaining = engine.check_objects(fixed, ctx, select=[code])
    assert [fx.key(f) for f in remaining] == []
