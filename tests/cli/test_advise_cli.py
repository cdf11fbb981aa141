"""``gpufleet advise`` and ``gpufleet podgroups`` through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpufleet.cli import advise_cmds
from gpufleet.crdschema import CrdSet
from tests.cli.builders import cli_runner

ROOT = Path(__file__).resolve().parents[2]
MIXED = ROOT / "stacks" / "mixed.fleet.yaml"
JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: robotics}
spec:
  parallelism: 4
  template:
    spec:
      restartPolicy: Never
      containers: [{name: w, image: t:1, resources: {limits: {nvidia.com/gpu: 4}}}]
"""


run = cli_runner(advise_cmds)


def test_advise_prints_the_mechanism_change_reason_and_four_answers_per_pool():
    result = run("advise", str(MIXED))
    assert result.exit_code == 0, result.output
    for pool, mechanism in (("h100", "kueue+tas"), ("a100", "volcano"), ("l40s", "coscheduling"), ("vault", "static")):
        assert f"pool {pool} " in result.stdout and f"recommended {mechanism}\n" in result.stdout
    assert result.stdout.count("  reason:  ") == 4 and result.stdout.count("  4 control plane: ") == 4


def test_advise_json_weighs_the_given_manifests(tmp_path):
    (tmp_path / "job.yaml").write_text(JOB)
    result = run("advise", str(MIXED), str(tmp_path), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    pools = {p["pool"]: p for p in data["pools"]}
    assert data["jobs"] == 1 and pools["l40s"]["largestJobGpus"] == 16
    assert set(pools["h100"]) >= {"mechanism", "change", "reason", "contention", "elasticJobs", "controlPlane"}
    assert all("_" not in key for pool in data["pools"] for key in pool)  # camelCase, as plan, lint and diff
    assert all(isinstance(pool[key], int) for pool in data["pools"] for key in ("largestJobGpus", "freeBlockGpus"))


def test_advise_never_writes_a_file(tmp_path, monkeypatch):
    (tmp_path / "job.yaml").write_text(JOB)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    monkeypatch.chdir(tmp_path)
    assert run("advise", str(MIXED), "job.yaml").exit_code == 0
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_a_broken_manifest_is_named_with_its_file_and_exit_1(tmp_path):
    (tmp_path / "bad.yaml").write_text("kind: Job\nmetadata: {name: [\n")
    result = run("advise", str(MIXED), str(tmp_path / "bad.yaml"))
    assert result.exit_code == 1 and "bad.yaml" in result.stderr and "Traceback" not in result.output


def test_a_missing_model_is_a_usage_error():
    result = run("advise", "stacks/nope.fleet.yaml")
    assert result.exit_code == 2 and "stacks/nope.fleet.yaml: no such file" in result.stderr


def test_a_free_fraction_outside_0_1_is_a_usage_error():
    assert run("advise", str(MIXED), "--free-fraction", "2").exit_code == 2


def test_podgroups_prints_a_valid_pod_group_for_each_coscheduling_gang(tmp_path, crds_dir):
    (tmp_path / "job.yaml").write_text(JOB)
    result = run("podgroups", str(MIXED), str(tmp_path / "job.yaml"))
    assert result.exit_code == 0, result.output
    [group] = list(yaml.safe_load_all(result.stdout))
    assert group["spec"] == {"minMember": 4, "scheduleTimeoutSeconds": 60}
    assert CrdSet.load(crds_dir).validate(group) == []


@pytest.mark.parametrize(
    "option, value",
    [
        ("--free-fraction", "nan"),
        ("--free-fraction", "NaN"),
        ("--free-fraction", "Infinity"),
        ("--free-fraction", "abc"),
        ("--small-pool", "nan"),
        ("--small-pool", "-5"),
        ("--small-pool", "Infinity"),
    ],
)
def test_a_non_finite_or_negative_threshold_is_a_usage_error_without_a_traceback(option, value):
    result = run("advise", str(MIXED), option, value)
    assert "Traceback" not in result.output and not isinstance(result.exception, ArithmeticError)
    assert result.exit_code == 2 and option in result.stderr and "fix:" in result.stderr


def test_podgroups_errors_name_the_podgroups_command(tmp_path):
    (tmp_path / "bad.yaml").write_text("kind: Job\nmetadata: {name: [\n")
    result = run("podgroups", str(MIXED), str(tmp_path / "bad.yaml"))
    assert result.exit_code == 1 and result.stderr.startswith("gpufleet podgroups: ") and "bad.yaml" in result.stderr


def test_manifests_outside_every_teams_namespace_are_reported_as_not_weighed(tmp_path):
    (tmp_path / "job.yaml").write_text(JOB.replace("namespace: robotics", "namespace: nobody"))
    result = run("advise", str(MIXED), str(tmp_path / "job.yaml"))
    assert result.exit_code == 0 and "none of the 1 object given" in result.stderr and "robotics" in result.stderr


def test_manifests_in_a_teams_namespace_give_no_such_note(tmp_path):
    (tmp_path / "job.yaml").write_text(JOB)
    result = run("advise", str(MIXED), str(tmp_path / "job.yaml"))
    assert result.exit_code == 0 and "none of the" not in result.stderr


def test_advise_without_jobs_says_there_are_none_instead_of_a_largest_job_of_zero(tmp_path):
    bare = run("advise", str(MIXED))
    assert bare.exit_code == 0, bare.output
    assert "largest job 0 GPUs" not in bare.stdout
    assert bare.stdout.count("  2 no jobs given (pass manifests to weigh job sizes); routine free block ") == 4
    (tmp_path / "job.yaml").write_text(JOB)
    some = run("advise", str(MIXED), str(tmp_path / "job.yaml"))
    assert "largest job 0 GPUs" not in some.stdout
    assert "none of the 1 job given asks for GPUs on this pool" in some.stdout
