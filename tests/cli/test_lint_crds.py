"""``gpufleet lint`` checks objects against the CRD schemas gpufleet carries, with no flags and no ../shared."""

from __future__ import annotations

import json

import pytest
import typer
import yaml
from typer.testing import CliRunner

from gpufleet.cli import lint_cmds
from gpufleet.crdschema import bundle

runner = CliRunner()

JOB = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: train, namespace: ml}
spec:
  schedulerName: volcano
  minAvailable: "four"
  tasks:
  - name: worker
    replicas: 4
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: trainer}]
"""


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    app = typer.Typer(pretty_exceptions_enable=False)
    lint_cmds.register(app)
    return app


@pytest.fixture
def job(tmp_path, monkeypatch):
    monkeypatch.delenv("GPUFLEET_SHARED", raising=False)
    monkeypatch.chdir(tmp_path)  # a fresh install: no ../shared, no CRD folder anywhere near
    path = tmp_path / "job.yaml"
    path.write_text(JOB)
    return str(path)


def gang601(result) -> list[dict]:
    return [f for f in json.loads(result.output)["findings"] if f["code"] == "GANG601"]


def test_a_volcano_job_with_a_string_min_available_is_refused_with_no_flags(app, job):
    result = runner.invoke(app, ["lint", job, "--format", "json"])
    assert result.exit_code == 1
    [finding] = gang601(result)
    assert finding["path"] == "spec.minAvailable" and "integer" in finding["message"]


def test_no_crds_turns_the_schema_rules_off(app, job):
    result = runner.invoke(app, ["lint", job, "--format", "json", "--no-crds"])
    assert gang601(result) == []


def test_a_crds_folder_overrides_the_carried_schema_of_the_same_kind(app, job, tmp_path):
    doc = json.loads(bundle.index()[("batch.volcano.sh", "v1alpha1", "Job")].read_bytes())
    doc["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["minAvailable"] = {
        "type": "string"
    }
    (tmp_path / "crds").mkdir()
    (tmp_path / "crds" / "volcano.yaml").write_text(yaml.safe_dump(doc))
    result = runner.invoke(app, ["lint", job, "--format", "json", "--crds", str(tmp_path / "crds")])
    assert gang601(result) == []


def test_a_config_file_can_turn_the_schema_rules_off(app, job, tmp_path):
    (tmp_path / "lint.yaml").write_text("crds: false\n")
    result = runner.invoke(app, ["lint", job, "--format", "json", "--config", str(tmp_path / "lint.yaml")])
    assert gang601(result) == []


def test_crds_and_no_crds_together_are_a_usage_error(app, job, tmp_path):
    result = runner.invoke(app, ["lint", job, "--crds", str(tmp_path), "--no-crds"])
    assert result.exit_code == 2
    assert "--no-crds" in result.output and "Traceback" not in result.output
