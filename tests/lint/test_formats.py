"""The three output formats: text, JSON (findings + summary) and SARIF 2.1.0."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from gpufleet.lint import jsonout, lint, sarif, text
from gpufleet.rules import registry
from tests.lint import manifests as m


@pytest.fixture
def report(tmp_path):
    waived = m.probed_job("waived").replace(
        "  namespace: research\n",
        "  namespace: research\n  annotations:\n    waive.gpufleet.dev/GANG301: watchdog probe only\n",
    )
    m.write(tmp_path, "jobs.yaml", m.probed_job() + "---\n" + waived)
    m.write(tmp_path, "kueue.yaml", "# Source: kueue/templates/config.yaml\n" + m.UNBOUNDED_CONFIG)
    m.write(tmp_path, "broken.yaml", "a: [\n")
    return lint([str(tmp_path)], select=["GANG000", "GANG301", "GANG503"])


def test_text_output_shows_location_code_object_path_message_and_fix(report):
    out = text.render_plain(report)
    assert "jobs.yaml:17: GANG301 liveness-or-readiness-probe [error] Job research/train" in out
    assert "  at spec.tasks[0].template.spec.containers[0].livenessProbe" in out
    assert "[waived: watchdog probe only] Job research/waived" in out
    assert "  from helm template kueue/templates/config.yaml" in out
    assert "  fix: " in out
    assert out.rstrip().endswith("3 file(s), 3 object(s): 2 error(s), 1 warning(s), 1 waived")


def test_json_output_is_findings_and_a_summary(report):
    doc = json.loads(jsonout.render(report))
    assert set(doc) == {"findings", "summary"}
    assert doc["summary"] == {"files": 3, "objects": 3, "errors": 2, "warnings": 1, "waived": 1}
    first = doc["findings"][0]
    assert set(first) >= {
        "code",
        "rule",
        "severity",
        "file",
        "line",
        "apiVersion",
        "kind",
        "namespace",
        "name",
        "path",
        "message",
        "fix",
        "waived",
        "waiverReason",
        "template",
    }
    assert sorted(f["code"] for f in doc["findings"]) == ["GANG000", "GANG301", "GANG301", "GANG503"]


def check_sarif(doc: dict) -> list[str]:
    """A minimal structural check of SARIF 2.1.0 (the keys GitHub code scanning requires)."""
    problems = []
    if doc.get("version") != "2.1.0" or "$schema" not in doc:
        problems.append("version/$schema")
    for run in doc.get("runs", [None]):
        driver = (run or {}).get("tool", {}).get("driver", {})
        if not driver.get("name") or not isinstance(driver.get("rules"), list):
            problems.append("tool.driver")
        ids = [r.get("id") for r in driver.get("rules", [])]
        for rule in driver.get("rules", []):
            if not (
                rule.get("shortDescription", {}).get("text")
                and rule.get("fullDescription", {}).get("text")
                and rule.get("helpUri", "").startswith("https://")
            ):
                problems.append(f"rule {rule.get('id')}")
        for result in (run or {}).get("results", []):
            location = result["locations"][0]["physicalLocation"]
            if (
                result.get("level") not in ("error", "warning", "note")
                or not result.get("message", {}).get("text")
                or ids[result["ruleIndex"]] != result["ruleId"]
                or not location["artifactLocation"]["uri"]
                or location["region"]["startLine"] < 1
            ):
                problems.append(f"result {result.get('ruleId')}")
    return problems


def test_sarif_output_is_structurally_valid_and_lists_every_rule(report):
    doc = json.loads(sarif.render(report))
    assert check_sarif(doc) == []
    [run] = doc["runs"]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == list(registry.REGISTRY)
    assert len(run["results"]) == 4


def test_sarif_marks_waived_findings_as_suppressed_with_the_reason(report):
    results = json.loads(sarif.render(report))["runs"][0]["results"]
    suppressed = [r["suppressions"] for r in results if "suppressions" in r]
    assert suppressed == [[{"kind": "inSource", "justification": "watchdog probe only"}]]


def test_sarif_levels_follow_rule_severity(report):
    levels = {r["ruleId"]: r["level"] for r in json.loads(sarif.render(report))["runs"][0]["results"]}
    assert levels == {"GANG000": "error", "GANG301": "error", "GANG503": "warning"}


@pytest.mark.parametrize(
    "file, base, uri",
    [
        ("/repo/manifests/job.yaml", "/repo", "manifests/job.yaml"),
        ("/elsewhere/job.yaml", "/repo", "/elsewhere/job.yaml"),
        ("manifests/job.yaml", "/repo", "manifests/job.yaml"),
        (None, None, "stdin"),
    ],
)
def test_sarif_uris_are_relative_to_the_repository_root_when_possible(file, base, uri):
    assert sarif.artifact_uri(file, Path(base) if base else None) == uri


@pytest.mark.parametrize("count", [0, 1, jsonout.BATCH, jsonout.BATCH + 1])
@pytest.mark.parametrize("message", ["plain", "é \u2028 \x01 \"q\" \\ \n", "lone \ud800 surrogate"])
def test_json_output_is_laid_out_as_the_standard_librarys_indented_dump(report, count, message):
    """Written in batches by orjson (or the standard library for what orjson refuses), byte for byte json.dumps."""
    first = report.results[0]
    located = type(first)(replace(first.finding, message=message, line=7), first.template)
    report.results = [located] * count
    expected = json.dumps(jsonout.document(report), indent=2, ensure_ascii=False) + "\n"
    assert jsonout.render(report) == expected
