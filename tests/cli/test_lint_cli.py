"""``gpufleet lint``, ``gpufleet rules`` and ``gpufleet explain`` through typer's CliRunner."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from gpufleet.cli import lint_cmds
from gpufleet.rules import registry
from tests.lint import manifests as m

runner = CliRunner()


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    app = typer.Typer(pretty_exceptions_enable=False)
    lint_cmds.register(app)
    return app


@pytest.fixture
def job(tmp_path):
    return str(m.write(tmp_path, "job.yaml", m.probed_job()))


def test_an_unwaived_error_exits_one_and_prints_file_line_code_and_fix(app, job):
    result = runner.invoke(app, ["lint", job, "--select", "GANG301"])
    assert result.exit_code == 1
    assert f"{job}:17: GANG301 liveness-or-readiness-probe [error] Job research/train" in result.output
    assert "fix: remove the livenessProbe" in result.output


def test_a_clean_manifest_exits_zero(app, tmp_path):
    path = m.write(tmp_path, "cfg.yaml", m.CLEAN_CONFIG)
    result = runner.invoke(app, ["lint", str(path)])
    assert result.exit_code == 0 and "0 error(s)" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["--select", "GANG999"],
        ["--ignore", "NOPE"],
        ["--format", "yaml"],
        ["--config", "/nonexistent.yaml"],
        ["--fleet-context", "/nonexistent.json"],
        ["--crds", "/nonexistent"],
    ],
)
def test_usage_errors_exit_two_without_a_traceback(app, job, args):
    result = runner.invoke(app, ["lint", job, *args])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_fleet_and_fleet_context_together_are_a_usage_error(app, job, tmp_path):
    result = runner.invoke(app, ["lint", job, "--fleet", "a.yaml", "--fleet-context", "b.json"])
    assert result.exit_code == 2


def test_json_format_prints_one_object(app, job):
    result = runner.invoke(app, ["lint", job, "--format", "json", "--select", "GANG301"])
    doc = json.loads(result.stdout)
    assert result.exit_code == 1 and doc["summary"]["errors"] == 1 and doc["findings"][0]["line"] == 17


def test_sarif_can_be_written_to_a_file(app, job, tmp_path):
    out = tmp_path / "out.sarif"
    result = runner.invoke(app, ["lint", job, "--format", "sarif", "--output", str(out)])
    assert result.exit_code == 1 and json.loads(out.read_text())["version"] == "2.1.0"


def test_dash_lints_standard_input(app):
    result = runner.invoke(app, ["lint", "-", "--select", "GANG301"], input=m.probed_job())
    assert result.exit_code == 1 and "<stdin>:17: GANG301" in result.output


def test_malformed_yaml_is_reported_as_gang000_not_a_traceback(app, tmp_path):
    path = m.write(tmp_path, "bad.yaml", "apiVersion: v1\nkind: [\n")
    result = runner.invoke(app, ["lint", str(path)])
    assert result.exit_code == 1 and f"{path}:3: GANG000 invalid-manifest" in result.output


def test_a_config_file_supplies_options_and_the_fleet_context(app, tmp_path):
    m.write(tmp_path, "fleet.json", json.dumps({"version": 1, "fleet": "t", "coldStartFloorSeconds": 3600}))
    config = m.write(tmp_path, "lint.yaml", "select: [GANG502]\nfleetContext: fleet.json\n")
    path = m.write(tmp_path, "cfg.yaml", m.CLEAN_CONFIG)
    assert runner.invoke(app, ["lint", str(path), "--config", str(config)]).exit_code == 1
    config.write_text("select: [GANG502]\nfleetContext: fleet.json\noptions: {GANG502: {floorSeconds: 600}}\n")
    assert runner.invoke(app, ["lint", str(path), "--config", str(config)]).exit_code == 0


def test_a_mistyped_rule_option_in_the_config_is_a_usage_error_naming_the_file_and_key(app, job, tmp_path):
    config = m.write(tmp_path, "lint.yaml", "options: {GANG502: {floorSecs: 600}, GANG203: {maxRetries: ten}}\n")
    result = runner.invoke(app, ["lint", job, "--config", str(config)])
    assert result.exit_code == 2
    assert f"{config}: options.GANG502.floorSecs: unknown option" in result.output
    assert f"{config}: options.GANG203.maxRetries: Input should be a valid integer" in result.output


def test_fleet_needs_a_loadable_model(app, job, tmp_path):
    model = m.write(tmp_path, "fleet.yaml", "not: a fleet\n")
    result = runner.invoke(app, ["lint", job, "--fleet", str(model)])
    assert result.exit_code == 2 and str(model) in result.output


def test_rules_lists_every_rule(app):
    result = runner.invoke(app, ["rules"])
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.output.splitlines()] == list(registry.REGISTRY)


@pytest.mark.parametrize("name", ["GANG505", "gang505", "preemption-without-gang-protection"])
def test_explain_prints_the_rule_docs(app, name):
    result = runner.invoke(app, ["explain", name])
    assert result.exit_code == 0
    assert result.output.lstrip().startswith("GANG505 preemption-without-gang-protection")
    assert "Why it is unsafe" in result.output


def test_explain_piped_is_rendered_plain_text_not_raw_markdown(app):
    result = runner.invoke(app, ["explain", "GANG301"])
    assert result.exit_code == 0 and "\x1b[" not in result.output
    assert not any(line.startswith(("#", "```")) for line in result.output.splitlines())
    assert "`" not in result.output.split("Example")[0]


def test_explain_an_unknown_rule_exits_two(app):
    assert runner.invoke(app, ["explain", "GANG999"]).exit_code == 2


def test_namespace_places_manifests_without_one_and_a_bad_name_is_a_usage_error(app, tmp_path):
    path = str(m.write(tmp_path, "js.yaml", m.probed_job().replace("  namespace: research\n", "")))
    found = runner.invoke(app, ["lint", path, "--format", "json", "--namespace", "vision"])
    assert {f["namespace"] for f in json.loads(found.output)["findings"]} == {"vision"}
    bad = runner.invoke(app, ["lint", path, "--namespace", "Not_A_Namespace"])
    assert bad.exit_code == 2 and "--namespace" in bad.output


@pytest.mark.parametrize("jobs", ["-1", "65", "100000"])
def test_a_number_of_jobs_out_of_range_is_a_usage_error_naming_the_limit(app, tmp_path, jobs):
    path = str(m.write(tmp_path, "js.yaml", m.probed_job()))
    bad = runner.invoke(app, ["lint", path, "--jobs", jobs])
    assert bad.exit_code == 2 and "--jobs" in bad.output and "up to 64" in bad.output


HELD_OUT = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: vc, namespace: alpha}
spec:
  minAvailable: 2
  tasks:
  - name: w
    replicas: 2
    template:
      spec:
        restartPolicy: Never
        containers: [{name: w, image: t:1, resources: {limits: {nvidia.com/gpu: 1}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: shards, namespace: alpha, labels: {kueue.x-k8s.io/queue-name: alpha}}
spec:
  completionMode: Indexed
  parallelism: 50
  completions: 50
  template:
    spec:
      restartPolicy: OnFailure
      containers: [{name: w, image: t:1, resources: {requests: {cpu: "2"}}}]
"""


def test_with_the_dev_stack_a_volcano_job_in_a_kueue_namespace_fails_and_cpu_shards_pass(app, tmp_path):
    """Issue 19, items 1 and 4, through the command line: GANG108 names alpha-vc; the CPU shards have no finding."""
    path = tmp_path / "held-out.yaml"
    path.write_text(HELD_OUT)
    result = runner.invoke(app, ["lint", str(path), "--fleet", "stacks/dev.fleet.yaml", "--format", "json"])
    findings = json.loads(result.output)["findings"]
    assert result.exit_code == 1
    assert {(f["name"], f["code"]) for f in findings if f["severity"] == "error"} >= {("vc", "GANG108")}
    assert any("alpha-vc" in f["fix"] for f in findings if f["code"] == "GANG108")
    assert [f for f in findings if f["name"] == "shards"] == []
