"""Configure, over gRPC: CI sets each rule's level and settings; policies/ci.json is a valid config."""

from __future__ import annotations

import json

import jsonschema
from google.protobuf import json_format

from gpufleet.policypack.report import parse
from tests.policies.builders import kueue_chart_props, kueue_config_yaml, volcano_job
from tests.policies.harness import PACK_DIR, Resource

CI_CONFIG = PACK_DIR / "ci.json"
BAD_JOB = Resource.of(volcano_job(replicas=4, min_available=2))
KUEUE_CHART = Resource(
    "kubernetes:helm.sh/v4:Chart", "kueue", kueue_chart_props(kueue_config_yaml("15m", backoff_limit=None))
)


def by_policy(diagnostics):
    return {d.policy: (d.level, parse(d.message)) for d in diagnostics}


def test_disabling_a_rule_keeps_both_its_policies_quiet(configured):
    with configured({"gang001-min-below-replicas": "disabled", "gang001-min-below-replicas-stack": "disabled"}) as pack:
        assert "gang001-min-below-replicas" not in by_policy(pack.analyze(BAD_JOB))
        assert not [d for d in pack.analyze_stack([BAD_JOB]) if d.policy.startswith("gang001")]
    assert "gang001-min-below-replicas" in by_policy(pack.analyze(BAD_JOB))


def test_a_warning_rule_can_be_made_mandatory(configured, pack):
    assert by_policy(pack.analyze_stack([KUEUE_CHART]))["gang503-no-requeue-backoff-limit-stack"][0] == "advisory"
    with configured({"gang503-no-requeue-backoff-limit-stack": "mandatory"}) as pack:
        level, found = by_policy(pack.analyze_stack([KUEUE_CHART]))["gang503-no-requeue-backoff-limit-stack"]
    assert (level, found) == (
        "mandatory",
        [("GANG503", "values.managerConfig.controllerManagerConfigYaml.waitForPodsReady")],
    )


def test_the_cold_start_floor_setting_reaches_the_rule(pack, configured):
    assert "gang502-wait-for-pods-ready-timeout-below-floor-stack" not in by_policy(pack.analyze_stack([KUEUE_CHART]))
    with configured({"gang502-wait-for-pods-ready-timeout-below-floor-stack": {"coldStartFloorSeconds": 3600}}) as pack:
        level, found = by_policy(pack.analyze_stack([KUEUE_CHART]))[
            "gang502-wait-for-pods-ready-timeout-below-floor-stack"
        ]
    assert level == "mandatory" and found == [
        ("GANG502", "values.managerConfig.controllerManagerConfigYaml.waitForPodsReady.timeout")
    ]


def test_a_fleet_model_setting_turns_the_fleet_rules_on(pack, configured):
    job = Resource.of(volcano_job(namespace="alpha", queue="not-a-team-queue"))
    assert "gang104-undeclared-queue" not in by_policy(pack.analyze(job))
    with configured({"gang104-undeclared-queue": {"fleetModel": "stacks/dev.fleet.yaml"}}) as pack:
        assert by_policy(pack.analyze(job))["gang104-undeclared-queue"] == ("mandatory", [("GANG104", "spec.queue")])


def ci_config():
    return json.loads(CI_CONFIG.read_text())


def test_ci_json_names_only_policies_of_the_pack_with_valid_levels_and_settings(pack):
    schemas = {p.name: json_format.MessageToDict(p.configSchema.properties) for p in pack.info.policies}
    levels = ["advisory", "mandatory", "remediate", "disabled"]
    for name, entry in ci_config().items():
        if name == "all":
            assert entry in levels
            continue
        assert name in schemas, f"ci.json names {name}, which is not a policy of the pack"
        entry = {"enforcementLevel": entry} if isinstance(entry, str) else entry
        schema = {"type": "object", "properties": {**schemas[name], "enforcementLevel": {"enum": levels}}}
        jsonschema.validate(entry, schema)


def test_ci_json_applied_through_configure_keeps_error_rules_blocking(configured):
    with configured(ci_config()) as pack:
        found = by_policy(pack.analyze(BAD_JOB))
    assert found["gang001-min-below-replicas"] == ("mandatory", [("GANG001", "spec.minAvailable")])


def test_ci_json_gives_a_rules_resource_and_stack_policies_the_same_level():
    config = ci_config()
    for name, entry in config.items():
        if name.endswith("-stack") and name[: -len("-stack")] in config:
            level = entry if isinstance(entry, str) else entry.get("enforcementLevel")
            twin = config[name[: -len("-stack")]]
            assert level == (twin if isinstance(twin, str) else twin.get("enforcementLevel")), name


def test_ci_json_makes_the_unbounded_requeue_warning_block_our_own_platform_stacks(configured):
    with configured(ci_config()) as pack:
        found = by_policy(pack.analyze_stack([KUEUE_CHART]))
    assert found["gang503-no-requeue-backoff-limit-stack"][0] == "mandatory"
