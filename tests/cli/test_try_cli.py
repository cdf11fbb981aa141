"""``gpufleet try`` before any engine runs: what it would try, and the inputs it refuses with their exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet.cli.app import run
from gpufleet.sandbox.procs import start, stop
from gpufleet.sandbox.state import State

ROOT = Path(__file__).resolve().parents[2]
DEV, PROD = ROOT / "stacks" / "dev.fleet.yaml", ROOT / "stacks" / "prod.fleet.yaml"
LAUNCHER = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: gang, namespace: alpha-vc}
spec:
  minAvailable: 2
  tasks:
  - name: worker
    replicas: 2
    template: {spec: {containers: [{name: w, image: t:1, resources: {limits: {nvidia.com/gpu: 2}}}]}}
  - name: launcher
    replicas: 1
    dependsOn: {name: [worker]}
    template: {spec: {containers: [{name: l, image: t:1}]}}
"""


def cli(argv: list[str], capsys) -> tuple[int, str, str]:
    code = run(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def job(tmp_path) -> Path:
    path = tmp_path / "job.yaml"
    path.write_text(LAUNCHER)
    return path


def test_a_dry_run_says_how_many_ranks_it_would_watch_and_for_how_long(job, tmp_path, capsys):
    code, out, err = cli(
        ["try", str(DEV), str(job), "--dry-run", "--format", "json", "--dir", str(tmp_path / "sb")], capsys
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["expectedRanks"] == 3  # two workers and the launcher that depends on them
    assert doc["timeoutSeconds"] == 300  # t4's startup budget (5m cold start + 5m rendezvous) capped at 300 s
    assert doc["sandbox"] == {"dir": str((tmp_path / "sb").resolve()), "controller": True}
    assert not (tmp_path / "sb").exists()


def test_manifests_without_a_workload_are_invalid_input_in_one_line(tmp_path, capsys):
    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n")
    code, out, err = cli(["try", str(DEV), str(path), "--dir", str(tmp_path / "sb")], capsys)
    assert (code, out) == (1, "") and len(err.splitlines()) == 1 and "no workload" in err and "fix" in err


@pytest.mark.parametrize("rank, code", [(2, 0), (3, 2)])
def test_a_rank_to_fail_must_be_one_of_the_gangs(rank, code, job, tmp_path, capsys):
    done, _, err = cli(
        ["try", str(DEV), str(job), "--fail-rank", str(rank), "--dry-run", "--dir", str(tmp_path)], capsys
    )
    assert done == code, err
    assert (code == 0) or "pass 0 to 2" in err


@pytest.fixture
def running_sandbox(tmp_path):
    """A state file of a 'running' sandbox of the dev model with the controller (a sleep stands in for each process)."""
    procs = [
        start(name, ["sleep", "60"], tmp_path / "logs" / f"{name}.log")
        for name in ("etcd", "gang-admission-controller")
    ]
    State(tmp_path / "sb", model=str(DEV), kubeconfig=str(tmp_path / "kubeconfig"), processes=procs, ready=True).save()
    yield tmp_path / "sb"
    for proc in procs:
        stop(proc, grace=1)


@pytest.mark.parametrize(
    "model, extra, words",
    [
        (PROD, [], "runs the model"),
        (DEV, ["--no-controller"], "runs with the gang-admission controller"),
    ],
    ids=["another model", "another controller choice"],
)
def test_a_sandbox_running_something_else_in_the_folder_is_not_reused(
    model, extra, words, running_sandbox, tmp_path, capsys
):
    job = tmp_path / "job.yaml"
    job.write_text(LAUNCHER)
    code, out, err = cli(["try", str(model), str(job), "--dir", str(running_sandbox), *extra], capsys)
    assert (code, out) == (2, "") and len(err.splitlines()) == 1, err
    assert words in err and "fix:" in err
