"""The pack's policies are derived from the rule registry, and each one is the engine's findings of its rule."""

from __future__ import annotations

import pytest
from pulumi_policy import ResourceValidationArgs, StackValidationArgs, StackValidationPolicy
from pulumi_policy.deserialize import deserialize_properties
from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UnknownValueError, unknown_checking_proxy

from gpufleet.policypack import build, report, stack
from gpufleet.rules import engine, registry
from tests.policies.builders import FakeResource, kueue_chart_props, kueue_config_yaml, priority_class, volcano_job
from tests.policies.harness import type_token, urn

ENFORCED = [rule for rule in registry.all_rules() if rule.kinds]
POLICIES = {p.name: p for p in build.policies()}


def resource_args(obj, config=None, remediation=False):
    props = deserialize_properties(obj, remediation)
    token = type_token(obj)
    return ResourceValidationArgs(
        token, props if remediation else unknown_checking_proxy(props), urn(token, "r"), "r", None, None, config or {}
    )


def violations(rule_code, obj, config=None):
    out = []
    build.validate_resource(registry.get(rule_code), resource_args(obj, config), lambda m, u=None: out.append(m))
    return out


@pytest.mark.parametrize("rule", ENFORCED, ids=lambda r: r.code)
def test_every_rule_that_checks_objects_has_a_resource_policy_with_its_level_and_remediation(rule):
    policy = POLICIES[f"{rule.code.lower()}-{rule.name}"]
    assert policy.enforcement_level is report.default_level(rule)
    assert policy.has_remediation() is (rule.remediate is not None)
    assert rule.family in policy.tags and rule.code in policy.description


@pytest.mark.parametrize("rule", ENFORCED, ids=lambda r: r.code)
def test_a_rule_has_a_stack_policy_exactly_when_it_has_a_stack_scope(rule):
    policy = POLICIES.get(f"{rule.code.lower()}-{rule.name}-stack")
    assert (policy is not None) is bool(stack.scopes(rule))
    assert policy is None or isinstance(policy, StackValidationPolicy)


def test_rules_without_kinds_have_no_policy_but_are_named_in_the_pack_description():
    for rule in registry.all_rules():
        if not rule.kinds:
            assert not any(name.startswith(rule.code.lower()) for name in POLICIES)
            assert f"{rule.code} {rule.name}" in build.description()


def test_a_resource_policy_reports_one_violation_per_engine_finding():
    job = volcano_job(replicas=4, min_available=2)
    expected = [(f.code, f.path) for f in engine.check_object(job, select=["GANG001"])]
    assert expected
    assert [pair for text in violations("GANG001", job) for pair in report.parse(text)] == expected


def test_a_resource_policy_ignores_resources_that_are_not_kubernetes_objects():
    out = []
    args = ResourceValidationArgs(
        "kubernetes:helm.sh/v4:Chart", unknown_checking_proxy({"values": {}}), "u", "n", None, None, {}
    )
    build.validate_resource(registry.get("GANG001"), args, lambda m, u=None: out.append(m))
    assert out == []


def test_a_finding_on_inputs_with_unknown_values_degrades_to_a_cannot_check_during_preview_error():
    job = volcano_job(replicas=4, min_available=2)
    job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["image"] = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    with pytest.raises(UnknownValueError) as raised:
        violations("GANG001", job)
    assert "GANG001 would flag `spec.minAvailable`" in raised.value.message
    assert "spec.tasks[0].template.spec.containers[0].image" in raised.value.message


def test_unknown_values_do_not_matter_when_the_rule_finds_nothing():
    job = volcano_job(replicas=4, min_available=4)
    job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["image"] = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    assert violations("GANG001", job) == []


def test_a_bad_setting_is_reported_as_a_violation_naming_it_on_the_resources_the_rule_checks():
    (text,) = violations("GANG402", volcano_job(), {"fleetModel": "missing.fleet.yaml"})
    assert text.startswith("GANG402 pod-exceeds-node: cannot run: fleetModel: missing.fleet.yaml does not exist")
    assert violations("GANG402", priority_class(), {"fleetModel": "missing.fleet.yaml"}) == []


def test_remediation_returns_inputs_that_then_pass_and_nothing_when_there_is_nothing_to_fix():
    rule = registry.get("GANG001")
    fixed = build.remediate_resource(rule, resource_args(volcano_job(replicas=4, min_available=2), remediation=True))
    assert fixed["spec"]["minAvailable"] == 4
    assert violations("GANG001", fixed) == []
    assert build.remediate_resource(rule, resource_args(volcano_job(min_available=4), remediation=True)) is None


def test_remediation_is_skipped_with_a_preview_error_when_the_inputs_hold_unknowns():
    job = volcano_job(replicas=4, min_available=2)
    job["spec"]["tasks"][0]["replicas"] = UNKNOWN_NUMBER_VALUE
    job["spec"]["tasks"].append({"name": "extra", "replicas": 4, "template": {"spec": {"containers": []}}})
    with pytest.raises(UnknownValueError) as raised:
        build.remediate_resource(registry.get("GANG001"), resource_args(job, remediation=True))
    assert raised.value.message.startswith("GANG001 remediation skipped")


def stack_violations(code, resources, config=None):
    out = []
    args = StackValidationArgs(resources, config or {})
    build.validate_stack(registry.get(code), args, lambda m, u=None: out.append((u, m)))
    return out


def test_the_stack_policy_checks_the_kueue_charts_values_and_reports_against_the_chart():
    chart = FakeResource(kueue_chart_props(kueue_config_yaml("2m")), "kubernetes:helm.sh/v4:Chart", "kueue")
    ((where, text),) = stack_violations("GANG502", [chart])
    assert where == chart.urn
    assert report.parse(text) == [
        ("GANG502", "values.managerConfig.controllerManagerConfigYaml.waitForPodsReady.timeout")
    ]


def test_the_stack_policy_reports_only_what_needs_the_other_objects():
    labelled = priority_class("gang-labelled", labels={"gpufleet.dev/gang": "true"})
    used = priority_class("gang-used")
    job = volcano_job(priorityClassName="gang-used")
    found = stack_violations("GANG504", [FakeResource(o) for o in (labelled, used, job)])
    assert [(u.rsplit("::", 1)[1], report.parse(m)) for u, m in found] == [
        ("gang-used", [("GANG504", "preemptionPolicy")])
    ]
