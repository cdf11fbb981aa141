"""The sandbox's state file keeps what a Pulumi stack needs to point at it (``up --engines-only``)."""

from __future__ import annotations

from gpufleet.sandbox import state as state_module
from gpufleet.sandbox.procs import Proc
from gpufleet.sandbox.state import State, down, load


def test_the_stack_config_of_an_engines_only_sandbox_survives_a_reload_and_shows_in_status(tmp_path):
    stack = {
        "gpufleet:enginesInstalled": "true",
        "gpufleet:controllerUrl": "https://127.0.0.1:9443",
        "gpufleet:controllerTlsDir": str(tmp_path / "certs" / "controller"),
    }
    State(tmp_path, model="stacks/dev.fleet.yaml", kubeconfig=str(tmp_path / "kubeconfig"), stack=stack).save()
    loaded = load(tmp_path)
    assert loaded.stack == stack
    assert loaded.status()["stack"] == stack


def test_a_state_file_written_before_the_stack_field_loads_with_none(tmp_path):
    (tmp_path / "state.json").write_text(
        '{"model": "m.yaml", "kubeconfig": "k", "ports": {}, "ready": false, "processes": []}'
    )
    assert load(tmp_path).stack == {}


def test_down_stops_the_api_servers_clients_together_then_the_api_server_then_etcd(tmp_path, monkeypatch):
    names = ["etcd", "kube-apiserver", "kube-controller-manager", "kueue", "gang-admission-controller"]
    processes = [Proc(name, 1000 + i, ("x",), "/dev/null", 1) for i, name in enumerate(names)]
    stops = []
    monkeypatch.setattr(state_module, "alive", lambda proc: True)
    monkeypatch.setattr(state_module, "stop_all", lambda procs: stops.append([p.name for p in procs]))
    stopped = down(State(tmp_path, processes=processes), keep=True)
    assert stops == [["gang-admission-controller", "kueue", "kube-controller-manager"], ["kube-apiserver"], ["etcd"]]
    assert stopped == list(reversed(names))
    assert load(tmp_path).processes == []
