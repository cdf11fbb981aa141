"""The report's numbers from hand-made replay logs: each definition of gpufleet.whatif.metrics."""

from __future__ import annotations

import pytest

from gpufleet.whatif import metrics
from gpufleet.whatif.observed import Eviction
from tests.whatif.builders import job, replay_log


def test_a_job_starts_when_its_last_pod_runs_and_waits_from_its_submission():
    j = job(submitted=100, spans=[(110, 120, 700), (110, 150, 700)])
    assert metrics.start(j, 3600) == 150
    m = metrics.team_metrics(replay_log(j), "alpha")
    assert (m.wait_p50_seconds, m.finished, m.never_admitted) == (50, 0, 0)


def test_a_job_never_whole_by_the_horizon_is_still_waiting_and_its_bound_pods_are_partial_gang_gpu_hours():
    j = job(pods=2, spans=[(0, 0, None)])  # one of two ranks bound and Running for the whole hour
    m = metrics.team_metrics(replay_log(j, horizon=3600), "alpha")
    assert (m.never_admitted, m.still_waiting) == (1, 1)
    assert m.partial_gang_gpu_hours == pytest.approx(8.0)
    assert (m.wait_p50_seconds, m.wait_p50_censored) == (3600, True)  # its wait so far, a lower bound


def test_gpu_hours_count_running_time_and_borrowed_hours_count_usage_above_nominal():
    j = job(pods=3, gpus=8, spans=[(0, 0, 1800)] * 3)  # 24 GPUs for half an hour, nominal 16
    m = metrics.team_metrics(replay_log(j), "alpha")
    assert m.gpu_hours == pytest.approx(12.0)
    assert m.borrowed_gpu_hours == pytest.approx(4.0)


def test_a_preemption_throws_away_the_gpu_time_since_the_last_start():
    j = job(pods=2, gpus=8, spans=[(0, 100, 700), (0, 100, 700)], evictions=[Eviction(700, "Preempted")])
    m = metrics.team_metrics(replay_log(j), "alpha")
    assert (m.preemptions, m.preempted_gpu_hours) == (1, pytest.approx(16 * 600 / 3600))


def test_pods_ready_timeouts_and_requeues_are_counted_apart_from_preemptions():
    j = job(evictions=[Eviction(10, "PodsReadyTimeout"), Eviction(20, "PodsReadyTimeout")], requeues=[15])
    m = metrics.team_metrics(replay_log(j), "alpha")
    assert (m.pods_ready_evictions, m.requeues, m.preemptions) == (2, 1, 0)


def test_utilization_separates_allocated_from_useful():
    whole = job("w", pods=1, spans=[(0, 0, 3600)])
    partial = job("p", pods=2, spans=[(0, 0, 3600)])
    samples = metrics.utilization(replay_log(whole, partial), samples=4)
    _, allocated, useful, per_team = samples[1]
    assert (allocated, useful) == (16 / 32, 8 / 32)
    assert per_team == {"alpha": 0.5}


@pytest.mark.parametrize(
    "waits, p50, p95",
    [
        ([0, 10, 20, 30, 40], 20, 40),  # the 3rd and the 5th of 5: ceil(0.5 x 5), ceil(0.95 x 5)
        ([10, 30], 10, 30),  # two jobs: p50 is a wait one of them had, not 20
        ([7], 7, 7),
        (list(range(100)), 49, 94),  # the 50th and the 95th of 100
    ],
)
def test_wait_percentiles_are_nearest_rank_a_wait_some_job_had(waits, p50, p95):
    jobs = [job(f"j{i}", pods=1, submitted=0, spans=[(w, w, w + 10)]) for i, w in enumerate(waits)]
    m = metrics.team_metrics(replay_log(*jobs, horizon=1000), "alpha")
    assert (m.wait_p50_seconds, m.wait_p95_seconds, m.wait_max_seconds) == (p50, p95, max(waits))
    assert not (m.wait_p50_censored or m.wait_p95_censored or m.wait_max_censored)


def test_a_figure_is_a_lower_bound_only_when_a_waiting_job_is_at_or_below_it():
    started = [job(f"s{i}", pods=1, spans=[(w, w, w + 10)]) for i, w in enumerate([10, 20, 30])]
    late = job("late", pods=1, submitted=990)  # waiting 10 s at the horizon: below every figure
    m = metrics.team_metrics(replay_log(*started, late, horizon=1000), "alpha")
    assert (m.wait_p50_seconds, m.wait_p50_censored) == (10, True)  # its true wait may push the median up
    assert (m.wait_max_seconds, m.wait_max_censored) == (30, True)
    early = job("early", pods=1, submitted=0)  # waiting the whole 1000 s: only the max is a bound
    m = metrics.team_metrics(replay_log(*started, early, horizon=1000), "alpha")
    assert (m.wait_p50_seconds, m.wait_p50_censored) == (20, False)
    assert (m.wait_max_seconds, m.wait_max_censored, m.still_waiting) == (1000, True, 1)


def test_a_job_the_api_server_refused_or_not_yet_submitted_has_no_wait():
    refused = job("r", pods=1, evictions=[Eviction(0, "Refused: denied")])
    later = job("later", pods=1, submitted=5000)
    m = metrics.team_metrics(replay_log(refused, later, horizon=3600), "alpha")
    assert (m.wait_max_seconds, m.still_waiting, m.never_admitted) == (None, 0, 2)


def test_fidelity_reports_the_replays_own_lag_and_warns_when_pods_start_slower_than_half_the_timeout():
    slow = job(pods=1, spans=[(0, 600, 1200)], created=60, admitted=[0.0])  # 10 wall s to start at k = 60
    log = replay_log(slow)
    log.scaled = [("admission.waitForPodsReady.timeout", 600.0, 10.0)]
    assert metrics.fidelity(log) == {
        "submitLagP95WallSeconds": 1.0,
        "podStartP95WallSeconds": 10.0,
        "gangStartP95WallSeconds": 10.0,
    }
    assert "more than half the scaled pods-ready timeout" in metrics.behind(log)
    log.jobs[0].spans["j-0"].running = 120  # 2 wall s
    assert metrics.behind(log) is None


def test_a_gang_whose_pods_were_created_late_warns_although_each_pod_started_at_once():
    # admitted at 0; the Job controller created the second pod 9 wall s later (k = 60); each pod Running 1 s after bind
    late = job(pods=2, spans=[(60, 120, 1200), (540, 600, 1200)], admitted=[0.0])
    log = replay_log(late)
    log.scaled = [("admission.waitForPodsReady.timeout", 600.0, 10.0)]
    assert metrics.fidelity(log)["podStartP95WallSeconds"] == 1.0
    assert metrics.fidelity(log)["gangStartP95WallSeconds"] == 10.0
    assert "gangs took 10 wall s from admission to all pods Running" in metrics.behind(log)


def test_the_start_time_a_trace_gives_its_pods_is_not_counted_as_the_machines_lag():
    # startSeconds 1200 (20 wall s at k = 60): Running 1260 trace s after bound, so the sandbox added 1 wall s
    cold = job(pods=2, spans=[(0, 1260, 1600), (0, 1260, 1600)], admitted=[0.0], start_seconds=1200.0)
    log = replay_log(cold)
    log.scaled = [("admission.waitForPodsReady.timeout", 1800.0, 30.0)]
    assert (metrics.fidelity(log)["podStartP95WallSeconds"], metrics.fidelity(log)["gangStartP95WallSeconds"]) == (1, 1)
    assert metrics.behind(log) is None


@pytest.mark.parametrize(
    "admitted, evicted, spans, expected",
    [
        ([0.0], [], [(0, 600, 1200), (0, 600, 1200)], [600.0]),  # whole at 600
        # evicted at 300 with one pod Running: left out; admitted again at 900 and whole at 1000
        ([0.0, 900.0], [300.0], [(0, 100, 300), (950, 1000, 2000), (950, 1000, 2000)], [100.0]),
        ([0.0], [], [(0, 100, None)], []),  # never whole by the horizon
    ],
)
def test_a_gangs_start_is_from_its_admission_to_all_its_pods_running_and_cut_short_ones_are_left_out(
    admitted, evicted, spans, expected
):
    gang = job(pods=2, spans=spans, admitted=admitted, evictions=[Eviction(t, "PodsReadyTimeout") for t in evicted])
    assert metrics.gang_starts(gang, 3600.0) == expected


@pytest.mark.parametrize(
    "min_pods, started, partial",
    [
        (2, 60, 4 * 60),  # runs once 2 pods run: each pod was bound 60 s before that
        (None, 600, 4 * 600),  # a whole gang: runs once all 4 run, each pod held 600 s before
    ],
)
def test_an_elastic_job_starts_once_its_min_pods_run(min_pods, started, partial):
    # 4 one-GPU pods bound at 0: two Running at 60, the other two at 600; all end at 1200
    spans = [(0, 60, 1200), (0, 60, 1200), (0, 600, 1200), (0, 600, 1200)]
    gang = job(pods=4, gpus=1, spans=spans, min_pods=min_pods)
    assert metrics.start(gang, 3600.0) == started
    assert metrics.partial_gpu_seconds(gang, 3600.0) == partial
