"""The time scale: the model's job-facing durations divided by k, and a k too large refused."""

from __future__ import annotations

from gpufleet.whatif import timescale
from gpufleet.whatif.trace import parse_trace
from tests.whatif.builders import dev, line


def test_the_sandboxs_model_has_the_timeout_and_backoff_divided_by_k():
    fleet = timescale.scaled_fleet(dev(), 60)
    wait = fleet.admission.wait_for_pods_ready
    assert (
        wait.timeout,
        wait.requeuing_strategy.backoff_base_seconds,
        wait.requeuing_strategy.backoff_max_seconds,
    ) == (10, 1, 30)
    assert fleet.teams == dev().teams


def test_the_report_lists_every_scaled_duration():
    names = [s.name.rsplit(".", 1)[-1] for s in timescale.scaled_durations(dev(), 60)]
    assert names == ["timeout", "backoffBaseSeconds", "backoffMaxSeconds"]


def test_a_time_scale_that_makes_a_run_shorter_than_the_engines_periods_is_refused_with_the_largest_safe_one():
    trace = parse_trace(line(runSeconds=120), dev())
    assert timescale.check(trace, [dev()], 60) is None
    why = timescale.check(trace, [dev()], 61)
    assert "runSeconds of job j1" in why and "use --time-scale 60 or less" in why


def test_the_pods_ready_timeout_bounds_the_time_scale_with_its_own_larger_floor():
    trace = parse_trace(line(runSeconds=100_000), dev())  # dev's timeout: 10 minutes
    assert timescale.check(trace, [dev()], 60) is None
    why = timescale.check(trace, [dev()], 61)
    assert "waitForPodsReady.timeout (600 s)" in why and "(10 s)" in why and "use --time-scale 60 or less" in why
