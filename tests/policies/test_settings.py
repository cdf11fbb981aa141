"""A policy's configuration becomes the engine's context: fleet model, cold-start floor, rule options."""

from __future__ import annotations

import json

import pulumi.runtime.config as pulumi_config
import pytest

from gpufleet.policypack import settings
from gpufleet.rules.platform.gang502_wait_for_pods_ready_timeout_below_floor import Gang502Options
from tests.policies.harness import REPO

DEV_MODEL = "stacks/dev.fleet.yaml"
FIXTURE_CONTEXT = REPO / "tests" / "rules" / "fixtures" / "fleet-context.json"


@pytest.fixture
def stack_config(monkeypatch):
    """Set the stack config the pack process would get as PULUMI_CONFIG."""
    monkeypatch.delitem(pulumi_config.CONFIG.get(), settings.STACK_MODEL_KEY, raising=False)
    monkeypatch.delenv("PULUMI_CONFIG_GPUFLEET_MODEL", raising=False)

    def apply(values):
        monkeypatch.setenv("PULUMI_CONFIG", json.dumps(values))

    apply({})
    return apply


VOLCANO_JOB = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job"}


def test_without_a_model_anywhere_the_context_has_no_fleet_and_fleet_rules_stay_off(stack_config):
    ctx = settings.check_context("GANG402", {})
    assert ctx.fleet is None and ctx.options == {}


def test_the_carried_crd_schemas_are_in_force_without_settings(stack_config):
    ctx = settings.check_context("GANG601", {})
    assert ctx.crds is not None and ctx.crds.knows(VOLCANO_JOB)


def test_no_crds_turns_the_schema_rules_off(stack_config):
    assert settings.check_context("GANG601", {"noCrds": True}).crds is None


def test_no_crds_with_a_crds_dir_is_an_error_naming_both(stack_config, tmp_path):
    with pytest.raises(settings.SettingsError, match="crdsDir or noCrds"):
        settings.check_context("GANG601", {"noCrds": True, "crdsDir": str(tmp_path)})


def test_the_fleet_model_setting_is_rendered_into_a_fleet_context(stack_config):
    ctx = settings.check_context("GANG402", {"fleetModel": DEV_MODEL})
    assert ctx.fleet.fleet == "dev"
    assert {t.name for t in ctx.fleet.teams} == {"alpha", "beta"}


def test_the_stack_config_gpufleet_model_is_used_when_the_policy_names_no_model(stack_config):
    stack_config({"gpufleet:model": DEV_MODEL})
    assert settings.check_context("GANG403", {}).fleet.fleet == "dev"


def test_a_rendered_fleet_context_json_is_accepted_too(stack_config):
    assert settings.check_context("GANG402", {"fleetModel": str(FIXTURE_CONTEXT)}).fleet.fleet == "fixture"


def test_the_cold_start_floor_overrides_the_fleet_and_becomes_the_rules_floor_option(stack_config):
    ctx = settings.check_context("GANG502", {"fleetModel": DEV_MODEL, "coldStartFloorSeconds": 900.0})
    assert ctx.fleet.cold_start_floor_seconds == 900
    assert ctx.options_for("GANG502", Gang502Options).floor_seconds == 900


def test_unreserved_keys_are_passed_to_the_rule_as_options(stack_config):
    ctx = settings.check_context("GANG502", {"enforcementLevel": "mandatory", "floorSeconds": 1200})
    assert ctx.options_for("GANG502", Gang502Options).floor_seconds == 1200


@pytest.mark.parametrize(
    "config, message",
    [
        ({"floorSecs": 1200}, r"options\.GANG502\.floorSecs: unknown option \(fix: use one of floorSeconds\)"),
        ({"floorSeconds": "20m"}, r"options\.GANG502\.floorSeconds: Input should be a valid integer"),
    ],
)
def test_a_mistyped_or_unknown_rule_option_is_an_error_naming_the_key(stack_config, config, message):
    with pytest.raises(settings.SettingsError, match=message):
        settings.check_context("GANG502", config)


def test_a_missing_model_file_is_a_clear_error_naming_the_setting_and_the_paths_tried(stack_config):
    with pytest.raises(
        settings.SettingsError, match=r"fleetModel: stacks/nope.yaml does not exist \(tried .*nope.yaml"
    ):
        settings.check_context("GANG402", {"fleetModel": "stacks/nope.yaml"})


def test_an_invalid_model_is_a_clear_error_with_every_issue(stack_config, tmp_path):
    bad = tmp_path / "bad.fleet.yaml"
    bad.write_text("apiVersion: gpufleet.dev/v1alpha1\nkind: Fleet\nname: bad\npools: 3\n")
    with pytest.raises(settings.SettingsError, match=r"fleet model .*bad.fleet.yaml is invalid:\n.*pools"):
        settings.check_context("GANG402", {"fleetModel": str(bad)})


def test_an_unreadable_fleet_context_json_is_a_clear_error(stack_config, tmp_path):
    bad = tmp_path / "context.json"
    bad.write_text(json.dumps({"version": 9}))
    with pytest.raises(settings.SettingsError, match=r"fleet context .*context.json cannot be read: .*version 9"):
        settings.check_context("GANG402", {"fleetModel": str(bad)})


def test_a_pack_beside_the_project_finds_the_stack_model_relative_to_the_project(stack_config, tmp_path, monkeypatch):
    project = tmp_path / "infra"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: shop\nruntime: python\n")
    (project / "fleet.yaml").write_text((REPO / DEV_MODEL).read_text())
    pack = tmp_path / "pack"
    pack.mkdir()
    monkeypatch.chdir(pack)  # Pulumi starts the pack in its own folder
    monkeypatch.setenv("PWD", str(project))  # the folder `pulumi preview --policy-pack ../pack` ran in
    monkeypatch.setenv("PULUMI_PROJECT", "shop")
    stack_config({settings.STACK_MODEL_KEY: "fleet.yaml"})
    assert settings.check_context("GANG402", None).fleet is not None
