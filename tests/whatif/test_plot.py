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
