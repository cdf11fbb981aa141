"""The picture: a PNG of utilization per model and team and the wait distributions, from hand-made replay logs."""

from __future__ import annotations

from gpufleet.whatif import plot
from tests.whatif.builders import job, replay_log


def test_the_plot_is_a_png_of_both_models(tmp_path):
    base = replay_log(job(pods=1, spans=[(10, 10, 600)], finished=600))
    new = replay_log(job(pods=1, spans=[(300, 300, 900)], finished=900))
    new.model = "new"
    out = tmp_path / "report.png"
    plot.draw(base, new, out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000


def test_a_model_where_no_job_started_still_draws(tmp_path):
    out = tmp_path / "empty.png"
    plot.draw(replay_log(job(pods=2, spans=[])), replay_log(job(pods=2, spans=[])), out)
    assert out.exists()


def test_the_wait_distribution_counts_a_job_still_waiting_with_its_wait_so_far():
    log = replay_log(job("a", pods=1, spans=[(60, 60, 600)]), job("b", pods=1, submitted=600), horizon=3600)
    assert plot._waits(log, "alpha") == [1.0, 50.0]
