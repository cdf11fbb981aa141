"""``gpufleet sandbox`` as a user meets it without a running sandbox: clear errors, exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpufleet.sandbox.needs import NeedMissing

ROOT = Path(__file__).resolve().parents[2]


def gpufleet(*args: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "gpufleet", "sandbox", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_status_of_no_sandbox_says_absent_in_json(tmp_path):
    done = gpufleet("status", "--dir", str(tmp_path / "none"), "--format", "json")
    assert done.returncode == 0
    doc = json.loads(done.stdout)
    assert doc["state"] == "absent" and doc["kubeconfig"] is None and doc["processes"] == []


def test_up_with_a_missing_model_is_a_usage_error_naming_the_file(tmp_path):
    done = gpufleet("up", str(tmp_path / "nope.yaml"), "--dir", str(tmp_path / "sb"))
    assert done.returncode == 2
    assert "nope.yaml: no such file" in done.stderr and "fix:" in done.stderr
    assert "Traceback" not in done.stderr


def test_up_without_built_engines_names_the_build_command_and_starts_nothing(tmp_path):
    if shutil.which("go") is None:
        pytest.skip("Go is not on PATH")
    done = gpufleet(
        "up",
        "stacks/dev.fleet.yaml",
        "--dir",
        str(tmp_path / "sb"),
        env={"GPUFLEET_ENGINES_CACHE": str(tmp_path / "cache")},
    )
    assert done.returncode == 2
    assert "bash sandbox/engines/build.sh" in done.stderr
    assert not (tmp_path / "sb" / "state.json").exists()


def test_down_of_no_sandbox_says_so(tmp_path):
    done = gpufleet("down", "--dir", str(tmp_path / "none"))
    assert done.returncode == 0 and "no sandbox" in done.stdout


def _job(tmp_path: Path) -> Path:
    """A two-rank Job of team alpha, written to ``tmp_path``."""
    job = tmp_path / "job.yaml"
    job.write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: alpha}\n"
        "spec: {parallelism: 2, completions: 2, template: {spec: {containers: [{name: w, image: t:1}]}}}\n"
    )
    return job


def _unavailable(*_, **__):
    raise NeedMissing("cannot make a private mount namespace (Operation not permitted): run the sandbox as root")


@pytest.mark.parametrize(
    "target, argv",
    [
        ("gpufleet.sandbox.up.up", ["sandbox", "up", "stacks/dev.fleet.yaml"]),
        ("gpufleet.sandbox.trial_run.open_sandbox", ["try", "stacks/dev.fleet.yaml", "{job}"]),
    ],
    ids=["sandbox-up", "try"],
)
def test_a_missing_need_is_a_usage_error_in_one_line(target, argv, tmp_path, monkeypatch, capsys):
    from gpufleet.cli.app import run

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(target, _unavailable)
    code = run([*(a.format(job=_job(tmp_path)) for a in argv), "--dir", str(tmp_path / "sb")])
    err = capsys.readouterr().err
    assert code == 2 and "run the sandbox as root" in err and "Traceback" not in err


def _denied(*_, **__):
    from gpufleet.sandbox.apply import Denied

    raise Denied(
        "Queue vision",
        "validatequeue.volcano.sh",
        'admission webhook "validatequeue.volcano.sh" denied the request: queue vision capability exceeds parent',
    )


@pytest.mark.parametrize(
    "target, argv",
    [
        ("gpufleet.sandbox.up.up", ["sandbox", "up", "stacks/dev.fleet.yaml"]),
        ("gpufleet.sandbox.trial_run.open_sandbox", ["try", "stacks/dev.fleet.yaml", "{job}"]),
        (
            "gpufleet.sandbox.replay.replay",
            [
                "whatif",
                "stacks/dev.fleet.yaml",
                "examples/whatif/dev-no-borrowing.fleet.yaml",
                "--trace",
                "examples/whatif/borrow.jsonl",
            ],
        ),
    ],
    ids=["sandbox-up", "try", "whatif"],
)
def test_a_webhooks_denial_of_a_rendered_object_is_exit_1_naming_the_object_the_webhook_and_the_way_out(
    target, argv, tmp_path, monkeypatch, capsys
):
    from gpufleet.cli.app import run

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(target, _denied)
    code = run([*(a.format(job=_job(tmp_path)) for a in argv), "--dir", str(tmp_path / "sb")])
    err = capsys.readouterr().err
    assert code == 1, err
    assert 'Queue vision: admission webhook "validatequeue.volcano.sh" denied the request' in err
    assert "--volcano-without /queues/validate" in err and "Traceback" not in err


@pytest.mark.parametrize("command", [["sandbox", "up"], ["try"], ["whatif", "run"]], ids=" ".join)
def test_each_command_that_starts_a_sandbox_takes_the_volcano_check_to_leave_out(command, capsys, monkeypatch):
    from gpufleet.cli.app import run

    monkeypatch.setenv("COLUMNS", "200")
    run([*command, "--help"])
    assert "--volcano-without" in capsys.readouterr().out


def test_up_prints_the_kubeconfig_path_and_the_line_that_exports_it(tmp_path, monkeypatch, capsys):
    from gpufleet.cli.app import run
    from gpufleet.sandbox.state import State

    monkeypatch.chdir(ROOT)
    kubeconfig = tmp_path / "my sandbox" / "kubeconfig"
    monkeypatch.setattr("gpufleet.sandbox.up.up", lambda *_, **__: State(tmp_path, kubeconfig=str(kubeconfig)))
    code = run(["sandbox", "up", "stacks/dev.fleet.yaml", "--dir", str(tmp_path / "sb")])
    out, err = capsys.readouterr()
    assert code == 0 and out == f"{kubeconfig}\n"
    assert f"export KUBECONFIG='{kubeconfig}'" in err
