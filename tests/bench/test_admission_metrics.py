"""bench/admission_metrics.py: the API server's admission histograms, diffed between two scrapes."""

from __future__ import annotations

import pytest

from tests.bench.loadbench import load

M = load("admission_metrics")

BOUNDS = ("0.005", "0.025", "0.1", "+Inf")


def page(series: dict[str, tuple[list[int], float]], family: str = M.WEBHOOK) -> str:
    """A /metrics page of ``family`` with one histogram per webhook name: name -> (cumulative bucket counts, sum)."""
    lines = [f"# HELP {family} a histogram", f"# TYPE {family} histogram"]
    for name, (buckets, total) in series.items():
        labels = f'name="{name}",operation="CREATE",rejected="false",type="validating"'
        lines += [f'{family}_bucket{{{labels},le="{le}"}} {n}' for le, n in zip(BOUNDS, buckets)]
        lines += [f"{family}_sum{{{labels}}} {total}", f"{family}_count{{{labels}}} {buckets[-1]}"]
    lines += ["# HELP go_goroutines other families are skipped", "# TYPE go_goroutines gauge", "go_goroutines 42"]
    return "\n".join(lines) + "\n"


def test_a_diff_holds_only_what_happened_between_the_scrapes():
    before = M.scrape(page({"gpufleet": ([5, 10, 10, 10], 0.05), "noop": ([1, 1, 1, 1], 0.001)}))
    after = M.scrape(page({"gpufleet": ([5, 30, 40, 40], 1.55), "noop": ([1, 1, 1, 1], 0.001)}))
    gpufleet = M.histogram(M.diff(before, after), M.WEBHOOK, name="gpufleet")
    assert (gpufleet.count, round(gpufleet.mean_ms, 6)) == (30, 50.0)
    assert gpufleet.buckets == ((0.005, 0), (0.025, 20), (0.1, 30), (float("inf"), 30))
    assert M.histogram(M.diff(before, after), M.WEBHOOK, name="noop").count == 0


def test_a_series_new_in_the_second_scrape_counts_whole():
    after = M.scrape(page({"gatekeeper": ([0, 4, 4, 4], 0.04)}))
    assert M.histogram(M.diff({}, after), M.WEBHOOK, name="gatekeeper").mean_ms == pytest.approx(10.0)


def test_series_matching_the_labels_are_added_and_other_families_are_not_read():
    samples = M.scrape(page({"a": ([1, 2, 2, 2], 0.02), "b": ([0, 2, 2, 2], 0.03)}))
    both = M.histogram(samples, M.WEBHOOK, type="validating")
    assert (both.count, round(both.total, 6)) == (4, 0.05)
    assert not any(name.startswith("go_") for name, _ in samples)
    assert M.histogram(samples, M.STEP).count == 0 and M.histogram(samples, M.STEP).mean_ms is None


@pytest.mark.parametrize(
    "buckets, q, expected_ms",
    [
        ([0, 10, 10, 10], 0.5, 15.0),  # half way through the 5-25 ms bucket
        ([10, 10, 10, 10], 0.99, 4.95),  # inside the first bucket, from 0
        ([0, 0, 0, 10], 0.99, 100.0),  # in +Inf: the highest finite bound, as histogram_quantile says
        ([0, 5, 10, 10], 0.75, 62.5),  # the 25-100 ms bucket
    ],
)
def test_quantiles_interpolate_inside_their_bucket_as_prometheus_does(buckets, q, expected_ms):
    h = M.histogram(M.scrape(page({"x": (buckets, 0.1)})), M.WEBHOOK)
    assert h.quantile_ms(q) == pytest.approx(expected_ms)


def test_ratios_are_taken_round_by_round_and_skip_rounds_missing_a_side():
    rounds = [
        {"webhook": 3.0, "noop": 2.0},
        {"webhook": 2.0, "noop": 2.0},
        {"webhook": 5.0},
        {"webhook": 1.0, "noop": None},
    ]
    assert M.ratios(rounds, "webhook", "noop") == [1.5, 1.0]
    assert M.spread([1.5, 1.0, 1.2]) == (1.2, 1.0, 1.5)


def test_a_step_shared_with_other_clients_creates_is_divided_by_the_benchs_own_creates():
    h = M.histogram(M.scrape(page({"x": ([0, 12, 12, 12], 0.24)})), M.WEBHOOK)
    assert (round(h.mean_ms, 6), round(h.per_ms(10), 6), h.per_ms(0)) == (20.0, 24.0, None)
