"""Agreement per rule: agree over agree, miss and false alarm; the spread over the run's groups; the docs' words."""

from __future__ import annotations

from gpufleet.difftier.compare import AGREE, FALSE_ALARM, MISS, UNTESTED, Judgement
from gpufleet.difftier.tally import Tally, doc_lines, line, rate
from gpufleet.workloads import outcomes as O


def test_untested_cases_are_counted_but_not_rated():
    assert rate({AGREE: 3, MISS: 1, UNTESTED: 5}) == 0.75 and rate({UNTESTED: 2}) is None


def test_the_record_has_each_rules_counts_rate_and_spread_over_groups():
    t = Tally()
    t.add("fixtures", Judgement({"GANG001": AGREE}, ()))
    t.add("seed 1", Judgement({"GANG001": FALSE_ALARM}, ()))
    t.add("seed 1", Judgement({"GANG001": AGREE}, ()))
    entry = t.record(command="c")["rules"]["GANG001"]
    assert (entry[AGREE], entry[FALSE_ALARM], entry["rate"], entry["spread"]) == (2, 1, 2 / 3, [0.5, 1.0])
    assert line(entry) == "67% (3 judged cases; 1 false alarm; spread 50-100%)"


def test_the_docs_say_which_rules_the_engines_do_not_judge_and_which_the_run_never_reached():
    record = {
        "command": "bench",
        "date": "2026-12-02",
        "seeds": [1],
        "cases": 1,
        "casesPerMinute": 3.0,
        "rules": {"GANG001": {AGREE: 1, MISS: 0, FALSE_ALARM: 0, UNTESTED: 0, "rate": 1.0, "spread": [1.0, 1.0]}},
    }
    lines, note = doc_lines(record, {"GANG001": O.NEVER_WHOLE, "GANG002": O.NEVER_WHOLE, "GANG701": O.NOT_JUDGED})
    assert lines["GANG001"] == "100% (1 judged case; spread 100-100%)"
    assert "no case" in lines["GANG002"] and "not judged" in lines["GANG701"]
    assert "bench" in note and "2026-12-02" in note
    assert doc_lines(None, {}) == ({}, "")
