"""Remediate, over gRPC: at level ``remediate`` a rule's safe fix returns inputs that then pass Analyze."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpufleet.policypack.build import policy_name
from gpufleet.policypack.props import plain
from gpufleet.rules import engine, registry
from tests.policies import cases
from tests.policies.builders import volcano_job
from tests.policies.harness import Resource
from tests.rules import fixtures as fx


def remediated(pack, resource, name):
    fixes = [props for policy, props, _ in pack.remediate(resource) if policy == name and props is not None]
    return plain(fixes[-1]) if fixes else None


@pytest.mark.parametrize("code", cases.REMEDIABLE)
def test_remediating_a_disallowed_fixture_returns_the_engines_fix_which_then_passes(configured, code):
    name = policy_name(registry.get(code))
    ctx = replace(cases.context(code), objects=())
    fixed_any = False
    with configured(cases.pack_config(code, level="remediate")) as pack:
        for resource, doc in zip(cases.resources(code, "disallowed.yaml"), fx.documents(code, "disallowed.yaml")):
            fixed = remediated(pack, resource, name)
            expected = engine.remediate(doc, ctx, select=[code])
            assert (fixed if fixed is not None else doc) == expected
            if fixed is not None:
                fixed_any = True
                after = [d for d in pack.analyze(Resource(resource.type, resource.name, fixed)) if d.policy == name]
                assert after == []
    assert fixed_any


def test_remediation_runs_only_at_level_remediate(pack):
    bad = Resource.of(volcano_job(replicas=4, min_available=2))
    assert pack.remediate(bad) == []  # default levels: mandatory, so Analyze reports instead
    assert [d.violations for d in pack.analyze(bad) if d.policy == "gang001-min-below-replicas"] == [
        [("GANG001", "spec.minAvailable")]
    ]


def test_a_remediated_resource_keeps_the_fields_it_had_and_changes_only_the_fix(configured):
    job = volcano_job(replicas=4, min_available=2)
    with configured({"gang001-min-below-replicas": "remediate"}) as pack:
        fixed = remediated(pack, Resource.of(job), "gang001-min-below-replicas")
    job["spec"]["minAvailable"] = 4
    assert fixed == job
