"""The messages a new user meets, each saying what is wrong and what to do (issue 21, item 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet.cli.app import run
from tests.cli.test_diff_cli import edited as edited_model
from tests.lint import manifests as m

ROOT = Path(__file__).resolve().parents[2]
DEV, PROD = ROOT / "stacks" / "dev.fleet.yaml", ROOT / "stacks" / "prod.fleet.yaml"


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = run([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("command", ["validate", "lint"])
def test_a_file_of_nul_and_0xff_bytes_is_called_binary_not_utf16(tmp_path, capsys, command):
    path = tmp_path / "blob.yaml"
    path.write_bytes(b"\x00\xff" * 64)
    _, out, err = cli(capsys, command, path)
    assert "binary" in out + err and "UTF-16" not in out + err


def test_a_real_utf16_file_is_still_called_utf16(tmp_path, capsys):
    path = tmp_path / "wide.yaml"
    path.write_bytes(DEV.read_text().encode("utf-16-le"))
    assert "UTF-16" in cli(capsys, "validate", path)[2]


def test_a_model_given_as_fleet_context_says_so_and_how_to_make_a_context(tmp_path, capsys):
    job = m.write(tmp_path, "job.yaml", m.probed_job())
    code, out, err = cli(capsys, "lint", job, "--fleet-context", DEV)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "this is a fleet model (kind: Fleet), but a fleet context (JSON) was expected" in err
    assert "--fleet instead of --fleet-context" in err and "gpufleet render MODEL --out DIR" in err
    assert ": : " not in err


def removed_team(data: dict) -> None:
    data["teams"].pop()


def test_diff_reasons_are_sentences_and_each_fix_is_printed_once_per_group(tmp_path, capsys):
    new = edited_model(tmp_path, removed_team)
    code, out, _ = cli(capsys, "diff", PROD, new)
    assert code == 1
    retire = "retire the team first"
    assert out.count(retire) == 1
    assert "work Fix:" not in out and "See fix 1." in out
    [line] = [line for line in out.splitlines() if line.startswith("fix 1 ")]
    assert line.startswith("fix 1 (steps ") and retire in line
    markdown = cli(capsys, "diff", PROD, new, "--format", "markdown")[1]
    assert (
        markdown.count(retire) == 1
        and "| BLOCKED | Pulumi refuses to delete a protected resource: it may hold admitted work. See fix 1. |"
        in markdown
    )


def test_the_diff_table_fits_100_columns_when_piped_with_columns_100(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(
        "COLUMNS", "100"
    )  # without COLUMNS a piped table is as wide as its values (tests/cli/test_console.py)
    _, out, _ = cli(capsys, "diff", PROD, edited_model(tmp_path, removed_team))
    assert max(len(line) for line in out.splitlines()) <= 100


def test_diff_git_outside_a_repository_says_so_and_does_not_suggest_the_flag_given(tmp_path, capsys):
    model = tmp_path / "prod.fleet.yaml"
    model.write_text(PROD.read_text())
    code, out, err = cli(capsys, "diff", model, "--git", "origin/main")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "is not in a git repository" in err and "gpufleet diff OLD NEW" in err
    assert "e.g. --git" not in err


@pytest.mark.parametrize("key", ["select", "ignore"])
def test_an_unknown_rule_code_in_a_lint_config_names_the_file_and_the_key(tmp_path, capsys, key):
    config = tmp_path / "lint.yaml"
    config.write_text(f"{key}: [GANG301, GANG999]\n")
    code, _, err = cli(capsys, "lint", m.write(tmp_path, "job.yaml", m.probed_job()), "--config", config)
    assert code == 2 and err.strip() == (
        f"gpufleet lint: {config}: {key}: unknown rule code(s) GANG999 "
        "(fix: use codes or prefixes that `gpufleet rules` lists (GANG301, GANG4))"
    )


def test_a_team_with_a_list_of_cohorts_is_told_a_team_has_one_cohort(tmp_path, capsys):
    def two_cohorts(data: dict) -> None:
        data["teams"][0]["cohort"] = ["ml", "research"]

    code, _, err = cli(capsys, "validate", edited_model(tmp_path, two_cohorts))
    assert code == 1
    assert "teams[0].cohort: ['ml', 'research'] is a list, but a team belongs to exactly one cohort" in err
    assert "Input should be a valid string" not in err


def test_a_tab_in_a_manifest_is_named_as_a_tab(tmp_path, capsys):
    job = m.write(tmp_path, "job.yaml", m.probed_job().replace("  namespace: research", "\tnamespace: research"))
    code, out, _ = cli(capsys, "lint", job)
    assert code == 1 and "a tab character at column 1" in out and "indent with spaces" in out
    assert "cannot start any token" not in out


def test_a_tab_in_a_model_is_named_as_a_tab(tmp_path, capsys):
    model = tmp_path / "tab.fleet.yaml"
    model.write_text(DEV.read_text().replace("\nname:", "\n\tname:", 1))
    code, _, err = cli(capsys, "validate", model)
    assert code == 1 and "a tab character" in err and "indent with spaces" in err


def test_an_empty_waiver_reason_is_an_error_that_asks_for_the_reason(tmp_path, capsys):
    text = m.probed_job().replace(
        "  namespace: research\n", "  namespace: research\n  annotations:\n    waive.gpufleet.dev/GANG301: \"\"\n"
    )
    code, out, _ = cli(capsys, "lint", m.write(tmp_path, "job.yaml", text), "--format", "json")
    [finding] = [f for f in json.loads(out)["findings"] if f["code"] == "GANG301"]
    assert code == 1 and finding["severity"] == "error" and not finding["waived"]
    assert "waive.gpufleet.dev/GANG301 has an empty reason, and a waiver needs one" in finding["message"]


def test_an_empty_waiver_reason_makes_a_warning_rule_blocking_too():
    from gpufleet.kubetypes.fieldpath import ROOT as PATH
    from gpufleet.rules.api import Finding, Severity
    from gpufleet.rules.waivers import apply

    warning = Finding("GANG999", "x", Severity.WARNING, PATH, "m", "f")
    obj = {"metadata": {"annotations": {"waive.gpufleet.dev/GANG999": "  "}}}
    [found] = apply(obj, [warning])
    assert found.blocking and "empty reason" in found.message


def test_counts_of_one_are_singular(tmp_path, capsys):
    assert "1 cohort, " in cli(capsys, "validate", DEV)[1]
    job = tmp_path / "jobs" / "job.yaml"
    job.parent.mkdir()
    job.write_text(m.probed_job())
    out = cli(capsys, "advise", PROD, job)[1]
    assert "1 job " in out and "1 jobs" not in out
