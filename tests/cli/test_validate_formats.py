"""``gpufleet validate --format json|sarif``: every issue at its line and column, for scripts and code scanning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet.cli.app import run
from tests.lint.test_formats import check_sarif

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "stacks" / "dev.fleet.yaml"


@pytest.fixture
def broken(tmp_path) -> tuple[Path, int]:
    """dev.fleet.yaml with an unknown field ``colour`` in its first team; the line it is on."""
    text = DEV.read_text().replace("  - name: alpha\n", "  - name: alpha\n    colour: blue\n", 1)
    path = tmp_path / "dev.fleet.yaml"
    path.write_text(text)
    return path, text.splitlines().index("    colour: blue") + 1


def cli(argv: list[str], capsys) -> tuple[int, str, str]:
    code = run(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_lists_each_issue_at_its_line_and_column_and_exits_1(broken, capsys):
    path, line = broken
    code, out, err = cli(["validate", str(path), "--format", "json"], capsys)
    doc = json.loads(out)
    assert code == 1 and err == "" and doc["valid"] is False and doc["counts"] is None
    assert {"line": line, "column": 5, "path": "teams[0].colour"}.items() <= doc["issues"][0].items()


def test_json_of_a_valid_model_counts_it_and_exits_0(capsys):
    code, out, _ = cli(["validate", str(DEV), "--format", "json"], capsys)
    assert code == 0 and json.loads(out) == {
        "model": str(DEV),
        "valid": True,
        "issues": [],
        "counts": {"pools": 2, "teams": 2, "cohorts": 1, "priorityClasses": 2},
    }


def test_sarif_places_each_issue_for_code_scanning(broken, capsys, monkeypatch):
    path, line = broken
    monkeypatch.chdir(path.parent)
    code, out, _ = cli(["validate", str(path), "--format", "sarif"], capsys)
    doc = json.loads(out)
    assert code == 1 and check_sarif(doc) == []
    [result] = doc["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "dev.fleet.yaml"
    assert (
        location["region"] == {"startLine": line, "startColumn": 5} and "teams[0].colour" in result["message"]["text"]
    )


def test_an_unknown_format_is_a_usage_error(capsys):
    code, out, err = cli(["validate", str(DEV), "--format", "yaml"], capsys)
    assert code == 2 and out == "" and "fix" in err
