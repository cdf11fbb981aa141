"""Pulumi.yaml and the stack files: what the Pulumi CLI would validate, checked without it."""

from __future__ import annotations

import pytest
import yaml

from tests.program.capture import REPO, stack_config, stack_names

PROJECT = yaml.safe_load((REPO / "Pulumi.yaml").read_text(encoding="utf-8"))
SCHEMA_TYPES = {"string": str, "boolean": bool, "integer": int, "array": list}


def test_the_project_is_a_python_pip_project_with_its_stacks_in_stacks():
    assert PROJECT["name"] == "gpufleet"
    assert PROJECT["runtime"] == {"name": "python", "options": {"toolchain": "pip", "virtualenv": ".venv"}}
    assert PROJECT["stackConfigDir"] == "stacks" and (REPO / "stacks").is_dir()
    assert (REPO / "__main__.py").is_file()


@pytest.mark.parametrize("key", sorted(PROJECT["config"]))
def test_each_config_key_uses_a_type_pulumi_yaml_supports_and_a_default_of_that_type(key):
    spec = PROJECT["config"][key]
    assert spec["type"] in SCHEMA_TYPES and spec.get("description")
    if "default" in spec:
        assert isinstance(spec["default"], SCHEMA_TYPES[spec["type"]])


def test_only_the_model_is_required():
    assert [k for k, spec in PROJECT["config"].items() if "default" not in spec] == ["model"]


@pytest.mark.parametrize("stack", stack_names())
def test_each_stack_sets_only_declared_keys_with_their_types_and_an_existing_model(stack):
    config = stack_config(stack)
    own = {k.split(":", 1)[1]: v for k, v in config.items() if k.startswith("gpufleet:")}
    assert set(own) <= set(PROJECT["config"])
    for key, value in own.items():
        assert isinstance(value, SCHEMA_TYPES[PROJECT["config"][key]["type"]]), key
    assert (REPO / own["model"]).is_file()
    assert own["model"] == f"stacks/{stack}.fleet.yaml"


def test_the_stack_config_reads_as_booleans_exactly_the_keys_pulumi_yaml_types_boolean():
    from gpufleet.pulumi.stack_config import BOOLEAN_KEYS

    assert sorted(BOOLEAN_KEYS) == sorted(k for k, spec in PROJECT["config"].items() if spec["type"] == "boolean")
