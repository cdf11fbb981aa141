"""The report: both sides per team and for the fleet, the spread of repeats, Markdown for a pull request."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from gpufleet.whatif import perjob, report
from tests.whatif.builders import job, replay_log


def logs(wait: float):
    return replay_log(job(pods=1, spans=[(wait, wait, wait + 100)], finished=wait + 100))


def test_the_json_has_every_headline_number_of_each_side_per_team_and_for_the_fleet():
    doc = report.to_json([logs(10)], [logs(40)], {"Job": "Indexed batch Job"})
    assert doc["timeScale"] == 60.0
    alpha = doc["teams"][0]
    assert alpha["team"] == "alpha"
    assert set(report.HEADLINE) <= set(alpha["base"]) and set(report.HEADLINE) <= set(doc["fleet"]["new"])
    assert (alpha["base"]["waitP50Seconds"], alpha["new"]["waitP50Seconds"]) == (10, 40)
    assert "spread" not in alpha["base"]


def test_repeats_report_the_median_and_every_numbers_spread():
    doc = report.to_json([logs(10), logs(30), logs(20)], [logs(40)] * 3, {})
    base = doc["teams"][0]["base"]
    assert base["waitP50Seconds"] == 20
    assert base["spread"]["waitP50Seconds"] == {"min": 10, "max": 30}


def test_markdown_is_one_table_with_the_change_column():
    text = report.to_markdown(report.to_json([logs(10)], [logs(40)], {"JobSet": "Indexed batch Job"}))
    assert "| alpha | waitP50Seconds | 10 | 40 | +30 |" in text
    assert "JobSet as Indexed batch Job" in text


SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "schemas" / "whatif-run.schema.json").read_text())


def test_the_json_matches_its_published_schema_with_and_without_repeats():
    for base in ([logs(10)], [logs(10), logs(30)]):
        jsonschema.validate(report.to_json(base, base, {"Job": "Indexed batch Job"}), SCHEMA)


def two_teams(wait: float, horizon: float = 3600.0, waiting: bool = False):
    """alpha's job started after ``wait`` (or, ``waiting``, never); beta's finished at once; nothing else happened."""
    alpha = job("a", pods=1, spans=[] if waiting else [(wait, wait, wait + 100)], created=0.0)
    beta = job("b", team="beta", pods=1, spans=[(0, 0, 100)], finished=100.0, created=0.0)
    log = replay_log(alpha, beta, horizon=horizon, nominal={("alpha", "l4"): 16.0, ("beta", "l4"): 16.0})
    log.stopped = "finished"
    return log


def test_the_per_job_table_gives_each_jobs_submission_start_and_wait_under_both_models_and_the_change():
    doc = report.to_json([two_teams(10)], [two_teams(0, horizon=900, waiting=True)], {})
    a = next(j for j in doc["jobs"] if j["job"] == "alpha/a")
    assert (a["base"]["startSeconds"], a["base"]["waitSeconds"], a["base"]["waitCensored"]) == (10, 10, False)
    assert (a["new"]["startSeconds"], a["new"]["waitSeconds"], a["new"]["waitCensored"]) == (None, 900, True)
    shown, left_out = perjob.rows(doc["jobs"])
    row = next(r for r in shown if r[0] == "alpha/a")
    assert row[3:] == ["10", "10", perjob.NOT_STARTED, "≥ 900", "≥ +890"]
    assert left_out == 0


def test_the_per_job_table_shows_the_jobs_whose_wait_changed_most_and_counts_the_rest():
    jobs = [{"job": f"n/j{i}", "team": "t", "submitSeconds": i, "waitChangeSeconds": float(i),
             "base": {"startSeconds": 0, "waitSeconds": 0, "waitCensored": False, "refused": False},
             "new": {"startSeconds": i, "waitSeconds": i, "waitCensored": False, "refused": False}}
            for i in range(5)]  # fmt: skip
    shown, left_out = perjob.rows(jobs, shown=2)
    assert [r[0] for r in shown] == ["n/j3", "n/j4"] and left_out == 3


def test_each_sides_horizon_is_its_own_and_numbers_zero_under_both_models_are_folded():
    doc = report.to_json([two_teams(10)], [two_teams(0, horizon=900)], {}, cap=5000)
    assert doc["horizonSeconds"] == {"base": 3600, "new": 900}
    assert doc["horizonCapSeconds"] == 5000 and doc["stopped"] == {"base": ["finished"], "new": ["finished"]}
    numbers = {(team, key) for team, key, *_ in report.rows(doc)}
    assert ("alpha", "preemptions") not in numbers and ("beta", "requeues") not in numbers
    assert ("alpha", "waitMaxSeconds") in numbers
    line = report.horizon_line(doc)
    assert "base 3600 trace s (finished)" in line and "new 900 trace s (finished)" in line and "5000" in line
    text = report.to_markdown(doc)
    assert line in text and "| job | team | submitted |" in text


def test_the_json_with_jobs_still_waiting_matches_its_schema():
    waiting = two_teams(0, horizon=900, waiting=True)
    waiting.stopped = "cap"
    doc = report.to_json([waiting], [waiting], {}, cap=900)
    jsonschema.validate(doc, SCHEMA)
    assert doc["teams"][0]["base"]["waitMaxCensored"] and doc["warnings"]
