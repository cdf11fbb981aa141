"""The sandbox's state file keeps what a Pulumi stack needs to point at it (``up --engines-only``)."""

from __future__ import annotations

from gpufleet.sandbox.state import State, load


def test_the_stack_config_of_an_engines_only_sandbox_survives_a_reload_and_shows_in_status(tmp_path):
    stack = {"gpufleet:enginesInstalled": "true", "gpufleet:controllerUrl": "https://127.0.0.1:9443",
             "gpufleet:controllerTlsDir": str(tmp_path / "certs" / "controller")}
    State(tmp_path, model="stacks/dev.fleet.yaml", kubeconfig=str(tmp_path / "kubeconfig"), stack=stack).save()
    loaded = load(tmp_path)
    assert loaded.stack == stack
    assert loaded.status()["stack"] == stack


def test_a_state_file_written_before_the_stack_field_loads_with_none(tmp_path):
    (tmp_path / "state.json").write_text('{"model": "m.yaml", "kubeconfig": "k", "ports": {}, "ready": false, "processes": []}')
    assert load(tmp_path).stack == {}
