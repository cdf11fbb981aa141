"""gpufleet.pulumi.package: GpuFleet as a component package (gpufleet:index:GpuFleet), for programs in any language.

The schema is what the SDK's component provider infers from the component's annotations (the
same ``ComponentProvider`` that :func:`gpufleet.pulumi.package.serve` serves); the component itself runs
under the recording mocks and must register what the Python program registers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pulumi
import pytest
import yaml
from pulumi.provider.experimental.component import ComponentProvider

from gpufleet import __version__
from gpufleet.pulumi.package import PACKAGE, GpuFleet, provider, stack_config
from tests.components.mocking import run_program
from tests.program.capture import REPO, run_stack

TOKEN = "gpufleet:index:GpuFleet"
PROJECT_CONFIG = yaml.safe_load((REPO / "Pulumi.yaml").read_text())["config"]
SCHEMA_TYPES = {"string": "string", "boolean": "boolean"}


@pytest.fixture(scope="module")
def schema() -> dict:
    provider = ComponentProvider([GpuFleet], PACKAGE, None, __version__)
    return json.loads(provider.schema)


def test_the_package_serves_one_component_gpufleet_index_gpufleet_at_gpufleets_version(schema):
    assert schema["name"] == "gpufleet" and schema["version"] == __version__
    assert list(schema["resources"]) == [TOKEN] and schema["resources"][TOKEN]["isComponent"] is True


def test_its_inputs_are_the_python_programs_stack_config_keys_with_their_types(schema):
    inputs = schema["resources"][TOKEN]["inputProperties"]
    assert {name: spec["type"] for name, spec in inputs.items()} == {
        key: SCHEMA_TYPES[spec["type"]] for key, spec in PROJECT_CONFIG.items()
    }


def test_only_the_model_is_required_and_every_input_is_plain_because_the_render_needs_its_value(schema):
    resource = schema["resources"][TOKEN]
    assert resource["requiredInputs"] == ["model"]
    assert all(spec.get("plain") is True for spec in resource["inputProperties"].values())


def test_each_input_is_described_as_pulumi_yaml_describes_its_stack_config_key(schema):
    inputs = schema["resources"][TOKEN]["inputProperties"]
    assert {name: spec["description"] for name, spec in inputs.items()} == {
        key: spec["description"] for key, spec in PROJECT_CONFIG.items()
    }


def test_every_input_and_output_is_described(schema):
    resource = schema["resources"][TOKEN]
    for name, spec in {**resource["inputProperties"], **resource["properties"]}.items():
        assert spec.get("description"), name


def test_its_outputs_are_the_python_programs_exports(schema):
    exports = set(run_stack("dev").exports)
    assert set(schema["resources"][TOKEN]["properties"]) == exports


def test_relative_paths_in_the_inputs_are_resolved_against_the_working_directory(tmp_path):
    (tmp_path / "charts" / "kueue").mkdir(parents=True)
    config = stack_config(
        {"model": "fleet.yaml", "kueue_chart_path": "charts/kueue", "engines_installed": True}, tmp_path
    )
    assert config.model == tmp_path / "fleet.yaml"
    assert config.chart_paths == {"kueue": str(tmp_path / "charts" / "kueue")}
    assert config.engines_installed is True


@pytest.mark.parametrize(
    "inputs, named",
    [
        ({"model": "fleet.yaml", "volcano_chart_path": "absent"}, "GpuFleet input volcanoChartPath"),
        ({"model": "fleet.yaml", "controller_url": "http://127.0.0.1:9443"}, "GpuFleet input controllerUrl"),
        ({"model": "fleet.yaml", "controller_tls_dir": ".", "cert_manager": True}, "GpuFleet input controllerTlsDir"),
        ({}, "GpuFleet input model"),
    ],
    ids=["missing-chart", "http-url", "tls-and-cert-manager", "no-model"],
)
def test_a_bad_input_is_one_clear_error_naming_the_input_not_a_stack_config_key(tmp_path, inputs, named):
    with pytest.raises(pulumi.RunError) as caught:
        stack_config(inputs, tmp_path)
    assert named in str(caught.value) and "pulumi config" not in str(caught.value)


def registered_by_component(monitor, inputs: dict, workdir: Path, monkeypatch):
    monkeypatch.chdir(workdir)
    return run_program(monitor, lambda: GpuFleet("dev", inputs))


def test_the_component_registers_what_the_python_program_registers_under_one_more_parent(
    monitor, tmp_path, monkeypatch
):
    (tmp_path / "fleet.yaml").write_text((REPO / "stacks" / "dev.fleet.yaml").read_text())
    inputs = {"model": "fleet.yaml", "engines_installed": True}
    registered = registered_by_component(monitor, inputs, tmp_path, monkeypatch)
    program = run_stack(
        "dev", {"gpufleet:model": "stacks/dev.fleet.yaml", "gpufleet:enginesInstalled": "true"}
    ).registered
    top = [r for r in registered if r.type == TOKEN]
    assert len(top) == 1
    assert [r.type for r in registered if r.parent == top[0].urn] == ["gpufleet:fleet:GpuFleet"]
    assert sorted((r.type, r.name) for r in registered if r.type != TOKEN) == sorted((r.type, r.name) for r in program)


BROKEN = "apiVersion: gpufleet.dev/v1alpha1\nkind: Fleet\nname: x\npools: []\nteams: []\ncolour: blue\n"


def test_a_broken_model_reaches_the_program_as_the_component_providers_one_clear_error(monitor, tmp_path, monkeypatch):
    """The provider's construct, as the SDK's gRPC server calls it: a RunError is passed on without stack frames."""
    (tmp_path / "fleet.yaml").write_text(BROKEN)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(pulumi.RunError) as caught:
        run_program(monitor, lambda: provider().construct("dev", TOKEN, {"model": "fleet.yaml"}, None))
    first, *issues = str(caught.value).splitlines()
    assert first == f"the fleet model {tmp_path / 'fleet.yaml'} (GpuFleet input model) has 2 issue(s):"
    assert all(line.startswith(f"{tmp_path / 'fleet.yaml'}:") and "(fix: " in line for line in issues)
    assert [line.split(": ", 2)[1] for line in issues] == ["colour", "pools"]


def _warnings(caplog) -> str:
    return " | ".join(r.getMessage() for r in caplog.records if r.levelname == "WARNING")


@pytest.mark.parametrize("digest, warned", [("", True), ("sha256:" + "ab" * 32, False)], ids=["by-tag", "by-digest"])
def test_the_component_warns_as_the_program_does_when_the_controller_image_is_not_pinned_by_digest(
    monitor, tmp_path, monkeypatch, caplog, digest, warned
):
    (tmp_path / "fleet.yaml").write_text((REPO / "stacks" / "dev.fleet.yaml").read_text())
    registered_by_component(
        monitor,
        {"model": "fleet.yaml", "engines_installed": True, "controller_image_digest": digest},
        tmp_path,
        monkeypatch,
    )
    assert ("not pinned by digest: set GpuFleet input controllerImageDigest" in _warnings(caplog)) is warned
    caplog.clear()
    run_stack("dev", {"gpufleet:model": "stacks/dev.fleet.yaml", "gpufleet:controllerImageDigest": digest})
    assert ("not pinned by digest: set stack config gpufleet:controllerImageDigest" in _warnings(caplog)) is warned


def test_the_same_check_through_the_stack_config_names_the_config_key_and_how_to_remove_it(tmp_path):
    from gpufleet.pulumi.stack_config import settings

    with pytest.raises(pulumi.RunError) as caught:
        settings(tmp_path, {"model": "fleet.yaml", "volcanoChartPath": "absent"}.get)
    assert "stack config gpufleet:volcanoChartPath" in str(caught.value)
    assert "`pulumi config rm gpufleet:volcanoChartPath`" in str(caught.value)
