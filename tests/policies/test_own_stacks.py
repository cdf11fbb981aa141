"""The repository's own stacks, as the mocked program registers them, pass the pack with no mandatory violation.

The resources come from ``tests.program.capture`` (the whole program under mocks,
the same ``RegisterResource`` inputs the CLI would hand the pack); the pack gets the
stack's fleet model as the stack config would give it. Chart children are rendered by
the provider in a real run and are absent here: the stack policies check the chart
values instead.
"""

from __future__ import annotations

from functools import cache

import pytest

from gpufleet.policypack import charts
from tests.policies.harness import Resource

capture = pytest.importorskip(
    "tests.program.capture", reason="tests/program/capture.py (the mocked program) is not there yet"
)
STACKS = capture.stack_names()


@cache
def resources(stack):
    return tuple(
        Resource(r["type"], r["name"], r["inputs"], r.get("parent") or "", r["urn"])
        for r in capture.capture_program(stack)
    )


@pytest.fixture(params=STACKS)
def stack_pack(request, pack):
    model = capture.stack_config(request.param).get("gpufleet:model")
    pack.configure({}, everywhere={"fleetModel": model} if model else {})
    try:
        yield request.param, pack
    finally:
        pack.reset()


def test_there_are_stacks_to_check():
    assert STACKS


def test_each_stack_registers_the_objects_and_chart_values_the_pack_checks(stack_pack):
    stack, _ = stack_pack
    found = resources(stack)
    assert any(r.type.startswith("kubernetes:kueue.x-k8s.io/") for r in found)
    rendered = [c for r in found if charts.is_chart(r.type) for c in charts.rendered_configmaps(r.props)]
    assert {c.obj["metadata"]["name"] for c in rendered} == {"kueue-manager-config", "volcano-scheduler-configmap"}


def test_no_resource_of_the_stack_gets_a_mandatory_violation(stack_pack):
    stack, pack = stack_pack
    mandatory = [(r.urn, d.message) for r in resources(stack) for d in pack.analyze(r) if d.level == "mandatory"]
    assert mandatory == []


def test_the_stack_as_a_whole_gets_no_mandatory_violation(stack_pack):
    stack, pack = stack_pack
    assert [(d.urn, d.message) for d in pack.analyze_stack(resources(stack)) if d.level == "mandatory"] == []
