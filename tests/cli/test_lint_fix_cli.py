"""``gpufleet lint --fix`` rewrites the files and reports what remains; ``--diff`` prints the same fixes and writes nothing.

Both front ends run (the argparse fast path that ``gpufleet lint ...`` takes, and the typer
command that ``--help`` and the full CLI use) through :func:`gpufleet.cli.app.run` and the
typer app itself.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from gpufleet.cli import lint_cmds
from gpufleet.cli.app import run
from tests.lint.test_fix import CONFIG_MAP, MULTI, VOLCANO_JOB

ROOT = Path(__file__).resolve().parents[2]
DEV = str(ROOT / "stacks" / "dev.fleet.yaml")


def typer_front(argv: list[str], capsys) -> tuple[int, str, str]:
    app = typer.Typer(pretty_exceptions_enable=False)
    lint_cmds.register(app)
    result = CliRunner().invoke(app, argv)
    return result.exit_code, result.stdout, result.stderr


def fast_front(argv: list[str], capsys) -> tuple[int, str, str]:
    code = run(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(params=[fast_front, typer_front], ids=["fast path", "typer"])
def cli(request, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    return lambda *argv: request.param(["lint", *argv], capsys)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "runs.yaml").write_text(MULTI)
    (tmp_path / "jobs" / "settings.yaml").write_text(CONFIG_MAP)
    return tmp_path / "jobs"


def texts(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(folder.iterdir())}


def test_fix_rewrites_the_files_reports_a_clean_lint_and_exits_zero(cli, files):
    code, out, err = cli("jobs", "--fleet", DEV, "--fix")
    assert code == 0, (out, err)
    assert "0 error(s), 0 warning(s)" in out
    assert err == "gpufleet lint: fixed 2 objects in 1 file\n"
    fixed = (files / "runs.yaml").read_text()
    assert "kueue.x-k8s.io/queue-name: alpha" in fixed and "queue: alpha" in fixed
    assert (files / "settings.yaml").read_text() == CONFIG_MAP


def test_fix_exits_one_when_a_blocking_finding_remains(cli, files):
    (files / "runs.yaml").write_text(MULTI.replace("backoffLimit: 0", "backoffLimit: 3"))
    code, out, _ = cli("jobs", "--fleet", DEV, "--fix")
    assert code == 1 and "GANG204" in out and "GANG103" not in out


def test_diff_writes_nothing_and_prints_the_patch_fix_would_apply(cli, files, tmp_path):
    before = texts(files)
    code, out, err = cli("jobs", "--fleet", DEV, "--diff")
    assert texts(files) == before
    assert code == 1 and out.startswith("--- a/jobs/runs.yaml\n+++ b/jobs/runs.yaml\n")
    assert err == "gpufleet lint: would fix 2 objects in 1 file; 0 blocking findings would remain\n"
    if shutil.which("git") is None:
        pytest.skip("git applies the diff")
    (tmp_path / "changes.diff").write_text(out)
    subprocess.run(["git", "apply", "changes.diff"], cwd=tmp_path, check=True)
    applied = texts(files)
    cli("jobs", "--fleet", DEV, "--fix")
    assert applied == texts(files) != before


def test_diff_exits_zero_once_there_is_nothing_to_fix(cli, files):
    cli("jobs", "--fleet", DEV, "--fix")
    code, out, err = cli("jobs", "--fleet", DEV, "--diff")
    assert (code, out) == (0, "") and "would fix 0 objects in 0 files; 0 blocking findings" in err


def test_an_unparsable_file_is_left_untouched_with_a_line_naming_it_and_the_others_are_fixed(cli, files):
    broken = VOLCANO_JOB + "---\nspec: [\n"
    (files / "broken.yaml").write_text(broken)
    code, out, err = cli("jobs", "--fleet", DEV, "--fix")
    assert (files / "broken.yaml").read_text() == broken
    assert code == 1 and "jobs/broken.yaml:" in out and "GANG000" in out
    notes = [line for line in err.splitlines() if "broken.yaml" in line]
    assert len(notes) == 1 and "not fixed, left as it is" in notes[0] and "fix:" in notes[0]
    assert "kueue.x-k8s.io/queue-name" in (files / "runs.yaml").read_text()


@pytest.mark.parametrize(
    "argv, says",
    [
        (("jobs", "--fix"), "without a fleet context the controller changes nothing"),
        (("jobs", "--diff"), "pass --fleet MODEL"),
        (("-", "--fix", "--fleet", DEV), "standard input"),
    ],
    ids=["fix without a fleet", "diff without a fleet", "fix of standard input"],
)
def test_what_cannot_be_fixed_is_a_usage_error_in_one_line(cli, files, argv, says):
    before = texts(files)
    code, out, err = cli(*argv)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and says in err and "fix:" in err
    assert texts(files) == before


def test_diff_goes_to_the_output_file_when_one_is_given(cli, files, tmp_path):
    code, out, _ = cli("jobs", "--fleet", DEV, "--diff", "--output", "fixes.diff")
    assert code == 1 and out == "" and (tmp_path / "fixes.diff").read_text().startswith("--- a/jobs/runs.yaml")


def test_the_fleet_can_come_from_the_linter_config(cli, files, tmp_path):
    (tmp_path / "lint.yaml").write_text(f"fleet: {DEV}\n")
    code, _, err = cli("jobs", "--config", "lint.yaml", "--fix")
    assert code == 0 and err == "gpufleet lint: fixed 2 objects in 1 file\n"
