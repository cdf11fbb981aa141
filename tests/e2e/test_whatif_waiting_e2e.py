"""``gpufleet whatif`` with jobs that wait for hours, on the real engines, with the default horizon (no --horizon).

examples/whatif/speech: one 128-GPU Kueue pool (16 x 8) shared by speech and vision (64 nominal each, one cohort);
speech submits four 64-GPU one-hour jobs within 30 s (burst.jsonl). By hand: where speech may not borrow
(no-borrowing.fleet.yaml) the jobs run one after another, the last starting about three hours after its submission;
where it may borrow 64 (borrowing.fleet.yaml) two run at a time, the last waiting about one hour, with about 128
borrowed GPU-hours. The default horizon must run each replay until its last job finished, not stop at twice the
trace's span with jobs still waiting (which made both models look alike). Replayed at k = 120 (the models' 30-minute
pods-ready timeout is 15 wall seconds); one wall second of engine latency per start is 120 trace seconds, so each
start is checked within ``SLACK`` trace seconds of its known answer, far below the hours that tell the models apart.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.model import load_model
from gpufleet.sandbox.replay import ReplayOptions, replay
from gpufleet.whatif import report, stop
from gpufleet.whatif.trace import load_trace
from tests.e2e.sandbox_env import require_go

SPEECH = Path(__file__).resolve().parents[2] / "examples" / "whatif" / "speech"
K = 120
HOUR = 3600.0
SLACK = 4 * 10 * K  # ten wall seconds of engine latency for each of four starts in a row
ALONE = True  # the bounds are engine latency times k: no other e2e module beside this one


@pytest.fixture(scope="module")
def doc(tmp_path_factory):
    require_go()
    tmp = tmp_path_factory.mktemp("whatif-waiting")
    logs = []
    for name in ("no-borrowing", "borrowing"):
        fleet = load_model(SPEECH / f"{name}.fleet.yaml")
        trace = load_trace(SPEECH / "burst.jsonl", [fleet])
        options = ReplayOptions(time_scale=K, horizon=stop.default_cap(trace), until_settled=True)
        logs.append(replay(fleet, name, trace, tmp / name, options))
    return report.to_json([logs[0]], [logs[1]], {}, cap=stop.default_cap(trace))


def _speech(doc, side):
    return next(t for t in doc["teams"] if t["team"] == "speech")[side]


def test_without_a_horizon_each_replay_runs_until_its_last_job_finished(doc):
    assert doc["stopped"] == {"base": ["finished"], "new": ["finished"]}
    assert _speech(doc, "base")["finished"] == _speech(doc, "new")["finished"] == 4
    assert doc["horizonSeconds"]["base"] >= 4 * HOUR > doc["horizonSeconds"]["new"] >= 2 * HOUR
    assert doc["warnings"] == [] or all("cap" not in w for w in doc["warnings"])


def test_speech_waits_about_three_hours_without_borrowing_and_about_one_with_it(doc):
    before, after = _speech(doc, "base"), _speech(doc, "new")
    assert 3 * HOUR - 30 <= before["waitMaxSeconds"] <= 3 * HOUR - 30 + SLACK
    assert HOUR - 30 <= after["waitMaxSeconds"] <= HOUR - 30 + SLACK
    assert not (before["waitMaxCensored"] or after["waitMaxCensored"])
    assert before["stillWaiting"] == after["stillWaiting"] == 0


def test_only_the_borrowing_model_borrows_about_128_gpu_hours(doc):
    assert _speech(doc, "base")["borrowedGpuHours"] == 0
    assert _speech(doc, "new")["borrowedGpuHours"] == pytest.approx(128, abs=SLACK * 64 / HOUR)


def test_the_per_job_table_adds_up_to_four_hours_less_waiting_with_borrowing(doc):
    """One job at a time without borrowing (waits 0, 1, 2, 3 h), two at a time with it (0, 0, 1, 1 h): four hours
    less in all. Summed, because which of the four jobs Kueue admits first is not fixed (they are created within
    the same second of the sandbox's clock, and equal-priority workloads are ordered by creation time)."""
    speech = [j for j in doc["jobs"] if j["job"].startswith("speech/")]
    assert len(speech) == 4
    assert all(j["base"]["startSeconds"] is not None and j["new"]["startSeconds"] is not None for j in speech)
    assert sum(j["waitChangeSeconds"] for j in speech) == pytest.approx(-4 * HOUR, abs=2 * SLACK)
