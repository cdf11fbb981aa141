"""The step reporter serves the last step and its time, from local rank 0 only, and never stops training."""

from __future__ import annotations

import logging
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpufleet import steps
from gpufleet.steps import Reporter, local_rank


def _scrape(reporter: Reporter, path: str = "/metrics") -> dict[str, float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{reporter.port}{path}", timeout=5) as response:
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = response.read().decode()
    return {s.name: s.value for family in text_string_to_metric_families(text) for s in family.samples}


@pytest.fixture
def reporter():
    r = Reporter(port=0, host="127.0.0.1", serve=True)
    yield r
    r.stop()


def test_it_serves_the_last_step_and_when_it_completed(reporter, monkeypatch):
    monkeypatch.setattr(steps.time, "time", lambda: 1_700_000_123.5)
    reporter.report_step(1)
    reporter.report_step(42)
    assert _scrape(reporter) == {
        "gpufleet_training_step": 42.0,
        "gpufleet_training_step_timestamp_seconds": 1_700_000_123.5,
    }


def test_before_the_first_step_it_serves_zero_for_both(reporter):
    reporter.start()
    assert _scrape(reporter) == {"gpufleet_training_step": 0.0, "gpufleet_training_step_timestamp_seconds": 0.0}


def test_other_paths_are_not_found(reporter):
    reporter.start()
    with pytest.raises(urllib.error.HTTPError) as err:
        _scrape(reporter, "/nope")
    assert err.value.code == 404


@pytest.mark.parametrize(
    "environ, rank",
    [
        ({}, 0),
        ({"LOCAL_RANK": "3"}, 3),
        ({"OMPI_COMM_WORLD_LOCAL_RANK": "1"}, 1),
        ({"SLURM_LOCALID": "2"}, 2),
        ({"LOCAL_RANK": "0", "SLURM_LOCALID": "5"}, 0),
        ({"LOCAL_RANK": "x"}, 0),
    ],
)
def test_the_local_rank_comes_from_the_launchers_variable(environ, rank):
    assert local_rank(environ) == rank


def test_a_rank_other_than_zero_records_but_does_not_serve(monkeypatch):
    monkeypatch.setenv("LOCAL_RANK", "1")
    other = Reporter(port=0)
    other.report_step(7)
    assert other.serve is False and other._server is None and other.last[0] == 7


def test_a_taken_port_is_logged_and_training_goes_on(reporter, caplog):
    reporter.start()
    second = Reporter(port=reporter.port, host="127.0.0.1", serve=True)
    with caplog.at_level(logging.WARNING, logger="gpufleet.steps"):
        second.report_step(3)
        second.report_step(4)
    assert second.serve is False and second.last[0] == 4
    assert len([r for r in caplog.records if "not serving" in r.message]) == 1


def test_the_port_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(steps.PORT_ENV, "9555")
    assert Reporter().port == 9555
    monkeypatch.delenv(steps.PORT_ENV)
    assert Reporter().port == steps.DEFAULT_PORT


def test_the_module_level_report_step_uses_one_process_wide_reporter(monkeypatch):
    monkeypatch.setattr(steps, "_default", Reporter(port=0, serve=False))
    steps.report_step(5)
    steps.report_step(6)
    assert steps.reporter().last[0] == 6


def test_the_module_level_start_serves_step_zero_before_any_step(monkeypatch):
    """Issue 20: a rank that has not stepped (loading, rendezvous, wedged) is an up target serving 0, not a down one."""
    monkeypatch.setattr(steps, "_default", None)
    monkeypatch.setenv(steps.PORT_ENV, "0")
    monkeypatch.setenv(steps.HOST_ENV, "127.0.0.1")
    started = steps.start()
    try:
        assert started is steps.reporter() and started.host == "127.0.0.1" and started.port != 0
        assert _scrape(started) == {"gpufleet_training_step": 0.0, "gpufleet_training_step_timestamp_seconds": 0.0}
        steps.report_step(1)
        assert _scrape(started)["gpufleet_training_step"] == 1.0
    finally:
        started.stop()
