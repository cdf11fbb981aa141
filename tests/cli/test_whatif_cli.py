"""``gpufleet whatif`` without the engines: its help shows how to compare two models, its dry run states the default
horizon, and a replay that fails leaves its logs, not its sandbox's data, and says where and how big."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.cli import whatif_cmds
from gpufleet.sandbox import replay as replaymod
from gpufleet.sandbox.kube import WaitTimeout
from gpufleet.sandbox.procs import StartError
from tests.cli.builders import cli_runner

ROOT = Path(__file__).resolve().parents[2]
BASE = str(ROOT / "stacks" / "dev.fleet.yaml")
NEW = str(ROOT / "examples" / "whatif" / "dev-no-borrowing.fleet.yaml")
TRACE = str(ROOT / "examples" / "whatif" / "borrow.jsonl")
run = cli_runner(whatif_cmds)


def test_whatif_help_shows_how_to_compare_two_models_and_where_traces_come_from():
    result = run("whatif", "--help")
    assert result.exit_code == 0
    words = " ".join(result.output.split())
    assert "whatif [OPTIONS] BASE [NEW]" in words and "gpufleet whatif BASE NEW --trace FILE" in words
    assert "--trace" in words and "--horizon" in words and "--git" in words
    assert "gpufleet whatif trace synth" in words


def test_a_dry_run_without_horizon_runs_until_every_job_finished_or_none_can_start_at_most_the_cap():
    result = run("whatif", BASE, NEW, "--trace", TRACE, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "until every job finished or none can start, at most" in result.output
    asked = run("whatif", BASE, NEW, "--trace", TRACE, "--dry-run", "--horizon", "15m")
    assert "until 900 trace s" in asked.output


@pytest.mark.parametrize("error", [StartError("etcd did not start"), WaitTimeout("timed out after 120s")])
def test_a_failed_replay_removes_its_sandbox_data_and_says_which_logs_it_kept_where_and_how_big(
    error, tmp_path, monkeypatch
):
    def failing(fleet, name, trace, directory, options, progress=None):
        (directory / "etcd" / "member").mkdir(parents=True)
        (directory / "etcd" / "member" / "db").write_bytes(b"\0" * 2**20)
        (directory / "pki").mkdir()
        (directory / "logs").mkdir()
        (directory / "logs" / "etcd.log").write_bytes(b"x" * 2**19)
        raise error

    monkeypatch.setattr(replaymod, "replay", failing)
    result = run("whatif", BASE, NEW, "--trace", TRACE, "--dir", str(tmp_path))
    assert result.exit_code == 2
    folder = tmp_path / "base-0"
    assert not (folder / "etcd").exists() and not (folder / "pki").exists()
    assert (folder / "logs" / "etcd.log").exists()
    said = " ".join(result.output.split())
    assert f"its logs are kept in {folder}/logs (0.5 MiB)" in said and f"rm -r {folder}" in said


def test_the_text_report_prints_each_sides_horizon_the_lower_bounds_and_the_per_job_table(monkeypatch):
    from tests.whatif.builders import job, replay_log

    def replayed(fleet, name, trace, directory, options, progress=None):
        waiting = "no-borrowing" in name
        big = job("big", pods=1, spans=[] if waiting else [(30, 30, 630)], created=0.0)
        if not waiting:
            big.finished = 630.0
        log = replay_log(big, horizon=1200.0 if waiting else 630.0)
        log.model, log.stopped = name, "stuck" if waiting else "finished"
        return log

    monkeypatch.setattr(replaymod, "replay", replayed)
    result = run("whatif", NEW, BASE, "--trace", TRACE)
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "base 1200 trace s (stuck); new 630 trace s (finished)" in said
    assert "≥ 1200" in said and "not started by the horizon" in said and "≤ -1170" in said
