"""When a replay stops: every job finished, none can ever start (stuck), the cap, or the --horizon asked for.

The case that needs it: a 128-GPU Kueue pool where team speech submits four 64-GPU one-hour jobs within 30 s. Where
speech may not borrow they run one after another (the last starts after about three hours); where it may borrow 64,
two at a time. Stopped at twice the trace's span (the old default), the first model still has two jobs waiting and,
with those left out, looked as good as the second.
"""

from __future__ import annotations

import json

import pytest

from gpufleet.whatif import report, stop
from gpufleet.whatif.observed import Eviction, ReplayLog
from gpufleet.whatif.trace import parse_trace
from tests.whatif.builders import job

HOUR = 3600.0
SPEECH = parse_trace(
    "\n".join(
        json.dumps(
            {"submitSeconds": t, "namespace": "speech", "kind": "Job", "pods": 8, "gpusPerPod": 8, "runSeconds": HOUR}
        )
        for t in (0, 10, 20, 30)
    ),
    None,
)
SERIAL_END = 30 + 4 * HOUR
"""When the last of the four ends if they run one after another: the answer the replay must wait for."""
OLD_DEFAULT = 2 * SPEECH.horizon_seconds


def speech_log(starts: list[float | None], now: float) -> ReplayLog:
    """The four jobs as the engines ran them up to ``now``: each started at its start (or not yet) and ran an hour."""
    jobs = []
    for i, (submitted, began) in enumerate(zip((0, 10, 20, 30), starts)):
        ended = None if began is None or began + HOUR > now else began + HOUR
        spans = [] if began is None else [(began, began, ended)] * 8
        jobs.append(
            job(f"s{i}", "speech", pods=8, gpus=8, submitted=submitted, spans=spans, pool="h100", created=submitted)
        )
        jobs[-1].finished = ended
    log = ReplayLog("m", 60.0, now, {"h100": 128}, {("speech", "h100"): 64.0, ("vision", "h100"): 64.0}, jobs)
    log.scaled = [("admission.waitForPodsReady.timeout", 600.0, 10.0)]
    return log


NO_BORROWING = [0, HOUR, 2 * HOUR, 3 * HOUR]
BORROWING = [0, 10, HOUR, HOUR + 10]


def test_the_default_cap_outlasts_the_jobs_run_one_after_another_where_twice_the_span_did_not():
    assert OLD_DEFAULT < SERIAL_END < stop.default_cap(SPEECH)


def test_the_default_horizon_goes_on_past_twice_the_span_while_jobs_run_or_wait():
    log = speech_log(NO_BORROWING[:2] + [None, None], OLD_DEFAULT)
    assert stop.reason(log, OLD_DEFAULT, True, stop.default_cap(SPEECH), until_settled=True) is None
    assert stop.reason(log, OLD_DEFAULT, True, OLD_DEFAULT, until_settled=False) == stop.HORIZON  # --horizon asked


def test_the_default_horizon_ends_when_every_job_finished_and_the_report_tells_the_models_apart():
    ends = {"base": NO_BORROWING[-1] + HOUR, "new": BORROWING[-1] + HOUR}
    logs = {side: speech_log(starts, ends[side]) for side, starts in (("base", NO_BORROWING), ("new", BORROWING))}
    for side, log in logs.items():
        log.stopped = stop.reason(log, ends[side], True, stop.default_cap(SPEECH), until_settled=True)
        assert log.stopped == stop.FINISHED
    doc = report.to_json([logs["base"]], [logs["new"]], {}, cap=stop.default_cap(SPEECH))
    speech = next(t for t in doc["teams"] if t["team"] == "speech")
    before, after = speech["base"], speech["new"]
    assert (before["waitMaxSeconds"], after["waitMaxSeconds"]) == (3 * HOUR - 30, HOUR - 20)
    assert (before["finished"], after["finished"], before["stillWaiting"]) == (4, 4, 0)
    assert (before["borrowedGpuHours"], after["borrowedGpuHours"]) == (0, pytest.approx(128, abs=0.5))
    assert doc["horizonSeconds"] == {"base": ends["base"], "new": ends["new"]}  # each side's own end
    assert doc["warnings"] == []


def test_stopped_at_twice_the_span_the_waiting_jobs_count_as_lower_bounds_not_left_out():
    base, new = speech_log(NO_BORROWING[:2] + [None, None], OLD_DEFAULT), speech_log(BORROWING, OLD_DEFAULT)
    base.stopped = new.stopped = stop.HORIZON
    doc = report.to_json([base], [new], {})
    speech = next(t for t in doc["teams"] if t["team"] == "speech")
    assert speech["base"]["waitMaxSeconds"] == OLD_DEFAULT - 20 and speech["base"]["waitMaxCensored"]
    assert speech["base"]["stillWaiting"] == 2 and speech["new"]["stillWaiting"] == 0
    assert any("2 job(s) not finished" in w for w in doc["warnings"])
    row = next(r for r in report.rows(doc) if r[:2] == ["speech", "waitMaxSeconds"])
    assert row[2].startswith("≥ ") and row[4] == f"≤ {3580 - (OLD_DEFAULT - 20):g}"


def test_a_replay_where_nothing_runs_and_nothing_changes_is_stuck_after_the_quiet_window():
    big = job("big", pods=4, gpus=8, created=0.0)  # never admitted, no pod ever bound
    done = job("done", pods=1, spans=[(0, 0, 100)], created=0.0, finished=100.0)
    log = ReplayLog("m", 60.0, 0.0, {"l4": 32}, {("alpha", "l4"): 16.0}, [big, done])
    log.scaled = [("backoffMaxSeconds", 1800.0, 30.0)]
    quiet = stop.quiet_seconds(log)
    assert quiet == stop.QUIET_FLOOR_WALL * 60  # nothing was evicted: no backoff can be running
    assert stop.reason(log, 100 + quiet - 1, True, 1e9, until_settled=True) is None
    assert stop.reason(log, 100 + quiet, True, 1e9, until_settled=True) == stop.STUCK
    assert stop.reason(log, 100 + quiet, False, 1e9, until_settled=True) is None  # jobs still to submit
    assert stop.reason(log, 100 + quiet, True, 1e9, until_settled=False) is None  # a --horizon runs to its end


def test_after_an_eviction_the_quiet_window_outlasts_the_longest_requeue_backoff():
    evicted = job("e", pods=1, created=0.0, evictions=[Eviction(50, "PodsReadyTimeout")], requeues=[60])
    log = ReplayLog("m", 60.0, 0.0, {"l4": 32}, {("alpha", "l4"): 16.0}, [evicted])
    log.scaled = [("backoffMaxSeconds", 1800.0, 30.0)]
    assert stop.quiet_seconds(log) == (stop.QUIET_FLOOR_WALL + 30.0) * 60
    assert stop.reason(log, 60 + stop.QUIET_FLOOR_WALL * 60, True, 1e9, until_settled=True) is None


def test_a_bound_pod_keeps_the_replay_going_however_quiet():
    held = job("held", pods=2, spans=[(0, 0, None)], created=0.0)
    log = ReplayLog("m", 60.0, 0.0, {"l4": 32}, {("alpha", "l4"): 16.0}, [held])
    assert stop.reason(log, 1e6, True, 1e9, until_settled=True) is None


@pytest.mark.parametrize(
    "stopped, waiting, says",
    [
        (stop.CAP, True, "stopped at its cap"),
        (stop.HORIZON, True, "stopped at the --horizon asked for"),
        (stop.CAP, False, None),
        (stop.STUCK, True, None),
    ],
)
def test_a_warning_says_when_the_cap_or_the_horizon_cut_the_replay_short(stopped, waiting, says):
    jobs = [job("w", pods=1, created=0.0)] if waiting else [job("f", pods=1, created=0.0, finished=10.0)]
    log = ReplayLog("m", 60.0, 500.0, {"l4": 32}, {}, jobs, stopped=stopped)
    found = stop.warning(log)
    assert (found is None) if says is None else (says in found and "1 job(s) not finished" in found)


def test_a_refused_job_counts_as_settled():
    refused = job("r", pods=1, evictions=[Eviction(0, "Refused: denied")])
    log = ReplayLog("m", 60.0, 0.0, {"l4": 32}, {}, [refused])
    assert stop.reason(log, 1.0, True, 1e9, until_settled=True) == stop.FINISHED
