"""A trial's result: which outcomes count as the gang running whole (exit 0 of ``gpufleet try``)."""

from __future__ import annotations

import pytest

from gpufleet.sandbox.trial import TrialResult


@pytest.mark.parametrize(
    "outcome, failed_pod, ok",
    [
        ("ranWhole", None, True),
        ("partlyBound", None, False),
        ("refused", None, False),
        ("restartedWhole", "ns/p-1", True),
        ("rankReplacedAlone", "ns/p-1", False),
        ("ranWhole", "ns/p-1", False),  # a failed rank that nothing reacted to is no restart
    ],
)
def test_only_a_whole_run_or_a_whole_restart_is_ok(outcome, failed_pod, ok):
    assert TrialResult(outcome, 2, [], failed_pod=failed_pod).ok is ok


def test_the_json_of_a_refusal_has_no_counts_but_says_who_refused():
    doc = TrialResult("refused", 3, [], refused_by="validatejob.volcano.sh", message="denied").as_dict()
    assert (doc["outcome"], doc["refusedBy"], doc["running"], doc["reasons"]) == (
        "refused",
        "validatejob.volcano.sh",
        0,
        [],
    )


@pytest.mark.parametrize(
    "outcome, failed_pod, says_what_would_restart",
    [
        ("stoppedWhole", "ns/p-0", True),
        ("restartedWhole", "ns/p-0", False),
        ("neverAdmitted", None, False),
    ],
)
def test_a_gang_stopped_whole_by_a_failed_rank_is_told_that_nothing_restarts_it(
    outcome, failed_pod, says_what_would_restart
):
    notes = TrialResult(outcome, 2, [], failed_pod=failed_pod).as_dict()["notes"]
    said = any("nothing restarts" in n and "RestartJobSet" in n and "RestartJob" in n for n in notes)
    assert said is says_what_would_restart
