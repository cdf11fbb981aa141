"""GetAnalyzerInfo, over gRPC from the running pack, lists every rule with its level and config schema."""

from __future__ import annotations

import pytest
from pulumi.runtime.proto import analyzer_pb2 as apb

from gpufleet.policypack.build import CONFIG_PROPERTIES
from gpufleet.policypack.report import default_level
from gpufleet.rules import registry
from gpufleet.settings import option_names
from tests.policies.harness import LEVEL_NAMES


def test_the_pack_starts_like_the_cli_starts_it_and_names_itself(pack):
    assert pack.info.name == "gpufleet"
    assert pack.info.supportsConfig


@pytest.mark.parametrize("rule", registry.all_rules(), ids=lambda r: r.code)
def test_every_registered_code_appears_in_a_policy_or_the_pack_description(pack, rule):
    named = [p for p in pack.info.policies if p.name.startswith(rule.code.lower() + "-")]
    assert named or f"{rule.code} {rule.name}" in pack.info.description


@pytest.mark.parametrize("rule", [r for r in registry.all_rules() if r.kinds], ids=lambda r: r.code)
def test_each_rules_policies_carry_its_default_level_and_the_config_schema(pack, rule):
    policies = [p for p in pack.info.policies if p.name.startswith(rule.code.lower() + "-")]
    assert {p.name for p in policies} >= {f"{rule.code.lower()}-{rule.name}"}
    for policy in policies:
        assert LEVEL_NAMES[policy.enforcementLevel] == default_level(rule).value
        own = set(option_names(rule.options)) if rule.options is not None else set()
        assert (
            set(policy.configSchema.properties) == set(CONFIG_PROPERTIES) | own
        )  # the pack's settings + the rule's options
        kind = (
            apb.PolicyType.POLICY_TYPE_STACK if policy.name.endswith("-stack") else apb.PolicyType.POLICY_TYPE_RESOURCE
        )
        assert policy.policy_type == kind
