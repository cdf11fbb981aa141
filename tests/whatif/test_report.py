"""The report: both sides per team and for the fleet, the spread of repeats, Markdown for a pull request."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from gpufleet.whatif import report
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
