"""The synthetic trace: seeded, valid for the model, team mix and sizes from the model."""

from __future__ import annotations

from collections import Counter

from gpufleet.whatif.synth import synth
from gpufleet.whatif.trace import dump_trace, parse_trace
from tests.whatif.builders import dev


def test_the_same_seed_gives_the_same_trace_and_another_seed_another():
    assert dump_trace(synth(dev(), 50, 4, seed=7)) == dump_trace(synth(dev(), 50, 4, seed=7))
    assert dump_trace(synth(dev(), 50, 4, seed=7)) != dump_trace(synth(dev(), 50, 4, seed=8))


def test_a_synthetic_trace_is_a_valid_trace_of_its_model_within_its_hours():
    jobs = synth(dev(), 200, 6, seed=1)
    trace = parse_trace(dump_trace(jobs), dev())
    assert len(trace.jobs) == 200
    assert all(0 <= j.submit_seconds <= 6 * 3600 for j in trace.jobs)


def test_no_job_asks_for_more_gpus_than_its_team_may_ever_hold_on_its_pool():
    fleet = dev()
    for j in synth(fleet, 300, 6, seed=2):
        team = next(t for t in fleet.teams if j.namespace in t.namespaces)
        q = team.quota[j.pool]
        ceiling = q.nominal + (q.borrowing_limit if q.borrowing_limit is not None else 10**6)
        assert j.pods * j.gpus_per_pod <= min(ceiling, fleet.pool(j.pool).node_count * 8)


def test_small_jobs_are_the_most_frequent():
    sizes = Counter(j.pods * j.gpus_per_pod for j in synth(dev(), 1000, 24, seed=3))
    assert sizes[1] > sizes[2] > sizes[8]


def test_synth_refuses_a_span_beyond_a_year_before_it_reads_the_model():
    import subprocess
    import sys

    args = [sys.executable, "-m", "gpufleet", "whatif", "trace", "synth", "no-such.fleet.yaml", "--hours", "9000"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "a trace spans a year at most (fix: --hours 8784 or less)" in done.stderr
