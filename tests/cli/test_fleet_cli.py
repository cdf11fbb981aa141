"""``gpufleet validate | render | plan | schema`` through typer's CliRunner."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

from gpufleet.cli import fleet_cmds
from tests.cli.builders import cli_runner

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "stacks" / "dev.fleet.yaml"
PROD = ROOT / "stacks" / "prod.fleet.yaml"


_run = cli_runner(fleet_cmds)


def _bad_model(tmp_path: Path) -> Path:
    data = yaml.safe_load(DEV.read_text())
    data["teams"][0]["quota"]["l4"]["nominal"] = 64
    data["teams"][1]["cohort"] = "nowhere"
    path = tmp_path / "bad.fleet.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("model, counts", [(DEV, "2 pools, 2 teams"), (PROD, "2 pools, 4 teams")])
def test_validate_reports_a_valid_model_and_exits_0(model, counts):
    result = _run("validate", str(model))
    assert result.exit_code == 0, result.output
    assert f"{model}: valid ({counts}" in result.stdout


def test_validate_prints_every_issue_with_file_path_and_fix_and_exits_1(tmp_path):
    bad = _bad_model(tmp_path)
    result = _run("validate", str(bad))
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) >= 2
    assert all(re.match(rf"{re.escape(str(bad))}:\d+:\d+: ", line) and "(fix: " in line for line in lines), lines
    assert any("teams[1].cohort" in line for line in lines)
    assert "Traceback" not in result.output


@pytest.mark.parametrize("text", ["kind: [unclosed", "- just\n- a list\n"])
def test_validate_handles_malformed_input_without_a_traceback(tmp_path, text):
    path = tmp_path / "broken.fleet.yaml"
    path.write_text(text)
    result = _run("validate", str(path))
    assert result.exit_code == 1
    assert re.match(rf"{re.escape(str(path))}:\d+:\d+: malformed YAML: ", result.stderr) or result.stderr.startswith(
        f"{path}: "
    )
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", ["validate", "plan"])
def test_a_missing_model_file_is_a_usage_error_naming_it(tmp_path, command):
    result = _run(command, str(tmp_path / "absent.yaml"))
    assert result.exit_code == 2 and "absent.yaml: no such file" in result.stderr


def test_a_missing_argument_is_a_usage_error():
    assert _run("validate").exit_code == 2


def test_render_writes_one_appliable_file_per_object_in_stage_folders(tmp_path):
    out = tmp_path / "out"
    result = _run("render", str(DEV), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert (out / "kustomization.yaml").is_file() and (out / "010-priorityclasses" / "kustomization.yaml").is_file()
    assert (out / "010-priorityclasses" / "000-priorityclass-gang-standard.yaml").is_file()
    assert (out / "engines" / "configmap-kueue-manager-config.yaml").is_file()
    assert (out / "context" / "fleet-context.json").is_file()
    for path in out.glob("[0-9]*/[0-9]*.yaml"):
        [doc] = list(yaml.safe_load_all(path.read_text()))
        assert {"apiVersion", "kind", "metadata"} <= set(doc), path


def test_render_replaces_its_own_previous_output(tmp_path):
    out = tmp_path / "out"
    assert _run("render", str(PROD), "--out", str(out)).exit_code == 0
    assert _run("render", str(DEV), "--out", str(out)).exit_code == 0
    assert not list(out.glob("*/*h100*")) and list(out.glob("*/*l4*"))
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_render_refuses_a_directory_holding_other_files(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    result = _run("render", str(DEV), "--out", str(tmp_path))
    assert result.exit_code == 2 and "notes.txt" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_render_of_an_invalid_model_writes_nothing(tmp_path):
    out = tmp_path / "out"
    result = _run("render", str(_bad_model(tmp_path)), "--out", str(out))
    assert result.exit_code == 1
    assert not out.exists()


@pytest.mark.parametrize(
    ("model", "texts"),
    [
        (
            PROD,
            (
                "pool h100",
                "pool a100",
                "research",
                "cohort ml",
                "first served within the cohort's unused quota",
                "warning:",
                "ClusterQueue",
                "Volcano Queue",
                "nominal+borrowing",
                "lifecycle",
                "active",
            ),
        ),
        (DEV, ("pool l4", "pool t4", "alpha", "unlimited", "may borrow without limit", "LocalQueue")),
    ],
)
def test_plan_prints_quota_per_pool_warnings_and_objects(model, texts):
    result = _run("plan", str(model))
    assert result.exit_code == 0, result.output
    for text in texts:
        assert text in result.stdout, text


@pytest.mark.parametrize("model", [PROD, DEV], ids=["prod", "dev"])
def test_plan_as_json_has_the_documented_shape(model):
    result = _run("plan", str(model), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"pools", "warnings", "objects", "stack"}
    assert set(data["stack"]) == {"name", "file", "prometheusOperator", "certManager", "enginesInstalled"}
    pool = data["pools"][0]
    assert set(pool) == {"name", "system", "mode", "nodeCount", "resource", "capacity", "stranded", "rows", "warnings"}
    assert set(pool["rows"][0]) == {
        "owner",
        "cohort",
        "lifecycle",
        "nominal",
        "nominalPlusBorrowing",
        "lendable",
        "sharePercent",
    }
    assert all(isinstance(n, int) for n in data["objects"].values())


def test_plan_with_an_unknown_format_is_a_usage_error():
    result = _run("plan", str(DEV), "--format", "yaml")
    assert result.exit_code == 2 and "use table or json" in result.stderr


def test_plan_of_an_invalid_model_exits_1(tmp_path):
    assert _run("plan", str(_bad_model(tmp_path))).exit_code == 1


def test_schema_prints_the_fleet_json_schema():
    result = _run("schema")
    assert result.exit_code == 0, result.output
    schema = json.loads(result.stdout)
    assert schema["type"] == "object" and "teams" in schema["properties"]


def test_schema_fails_cleanly_when_the_schema_module_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "gpufleet.model.schema", None)  # makes the import fail
    result = _run("schema")
    assert result.exit_code == 1
    assert "not available" in result.stderr and "Traceback" not in result.output


def test_render_writes_the_gang_alerts_as_a_plain_rule_file_and_as_operator_objects(tmp_path):
    out = tmp_path / "out"
    assert _run("render", str(DEV), "--out", str(out)).exit_code == 0
    rules = yaml.safe_load((out / "prometheus" / "gpufleet-gangs.rules.yaml").read_text())
    alerts = {r["alert"] for g in rules["groups"] for r in g["rules"] if "alert" in r}
    assert alerts == {
        "GangNoFirstStep",
        "GangPartiallyRunning",
        "GangStepStalled",
        "KueuePodsReadyTimeoutStorm",
        "GangAdmissionCertificateExpiring",
        "GangAdmissionControllerDown",
        "GangAdmissionControllerDegraded",
        "GangAdmissionWebhookFailing",
    }
    assert (
        sorted(p.name.split("-")[0] for p in (out / "monitoring").iterdir() if p.name != "kustomization.yaml")
        == ["podmonitor"] * 2 + ["prometheusrule"] * 4
    )
    assert _run("render", str(DEV), "--out", str(out)).exit_code == 0  # its own sub-folders do not block a re-render


def _planned_objects(tmp_path: Path, enforcement: str) -> dict[str, int]:
    data = yaml.safe_load(DEV.read_text())
    data["controller"]["enforcement"] = enforcement
    model = tmp_path / f"{enforcement}.fleet.yaml"  # no stack names it: the stack defaults
    model.write_text(yaml.safe_dump(data))
    result = _run("plan", str(model), "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["objects"]


def test_plan_as_json_lists_the_rules_admission_policies_an_enforcement_both_stack_applies(tmp_path):
    from gpufleet.rules.api import Severity
    from gpufleet.rules.registry import all_rules

    both, webhook = _planned_objects(tmp_path, "both"), _planned_objects(tmp_path, "webhook")
    from gpufleet.rules.admission_policies import policy_forms

    forms = sum(
        (1 + (rule.severity is Severity.WARNING)) * len(policy_forms(rule.cel))  # + a blank-waiver policy; per part
        for rule in all_rules()
        if rule.cel is not None
    )
    assert forms >= 6
    for kind in ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"):
        assert both[kind] - webhook.get(kind, 0) == forms, kind
    assert both["ConfigMap"] - webhook["ConfigMap"] == 1  # the params the policies read
