"""The API server's admission histograms, diffed between two scrapes of its ``/metrics``.

Pure (text in, numbers out): used by ``bench/admission_bench.py``, which scrapes before and
after each batch of creates and reads what that batch cost, and by
``tests/bench/test_admission_metrics.py``. The metrics (Kubernetes' own names):

- ``apiserver_admission_step_admission_duration_seconds`` {operation, resource, type: admit|validate}:
  a whole admission step of one request (every mutating, then every validating plugin);
- ``apiserver_admission_webhook_admission_duration_seconds`` {name}: one webhook's call;
- ``apiserver_admission_controller_admission_duration_seconds`` {name}: one admission plugin
  (``ValidatingAdmissionPolicy``, ``ValidatingAdmissionWebhook``...).

- ``apiserver_request_duration_seconds`` {verb, group, resource, dry_run}: the whole request, create
  to answer, as the API server times it.

(``apiserver_validating_admission_policy_check_duration_seconds`` is left out: kube-apiserver v1.37.2
observed it for the refused checks only in this sandbox, none for the allowed creates measured.)
The step and plugin histograms have no resource label in v1.37.2: a batch's diff also holds the few
CREATEs of other clients meanwhile (the controllers' events, admitted in microseconds), so the bench
divides their sums by its own creates (:meth:`Histogram.per_ms`), not by their counts.

Text is parsed with prometheus_client's parser, after keeping only the lines of these families
(the API server's page is several megabytes).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Iterable, Mapping

from prometheus_client.parser import text_string_to_metric_families

STEP = "apiserver_admission_step_admission_duration_seconds"
WEBHOOK = "apiserver_admission_webhook_admission_duration_seconds"
PLUGIN = "apiserver_admission_controller_admission_duration_seconds"
REQUEST = "apiserver_request_duration_seconds"
PREFIXES = ("apiserver_admission_", f"{REQUEST}_")

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
"""(sample name, its labels) -> value: one scrape, or the difference of two."""


def scrape(text: str) -> Samples:
    """The admission families' samples of a ``/metrics`` page."""
    kept = "\n".join(
        line
        for line in text.splitlines()
        if line.startswith(PREFIXES) or (line.startswith("#") and any(p in line for p in PREFIXES))
    )
    out: Samples = {}
    for family in text_string_to_metric_families(kept + "\n"):
        for sample in family.samples:
            out[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return out


def diff(before: Samples, after: Samples) -> Samples:
    """What happened between two scrapes: ``after`` minus ``before`` per sample (a series new in ``after`` counts whole)."""
    return {key: value - before.get(key, 0.0) for key, value in after.items()}


@dataclass(frozen=True)
class Histogram:
    count: float
    total: float
    buckets: tuple[tuple[float, float], ...]
    """(upper bound, cumulative count), ascending, ``+Inf`` last."""

    @property
    def mean_ms(self) -> float | None:
        return 1000 * self.total / self.count if self.count else None

    def per_ms(self, requests: int) -> float | None:
        """Milliseconds per one of ``requests`` (the histogram's sum shared by the requests a client sent)."""
        return 1000 * self.total / requests if requests else None

    def quantile_ms(self, q: float) -> float | None:
        """Prometheus' ``histogram_quantile``: linear inside the bucket the rank falls in (its upper bound for ``+Inf``)."""
        if not self.count:
            return None
        rank, lower, below = q * self.count, 0.0, 0.0
        for upper, cumulative in self.buckets:
            if cumulative >= rank:
                if upper == float("inf"):
                    return 1000 * lower
                inside = cumulative - below
                return 1000 * (lower + (upper - lower) * ((rank - below) / inside if inside else 1.0))
            lower, below = upper, cumulative
        return 1000 * lower


def histogram(samples: Samples, family: str, **match: str) -> Histogram:
    """The series of ``family`` whose labels include ``match``, added together."""
    want = set(match.items())
    count = total = 0.0
    buckets: dict[float, float] = {}
    for (name, labels), value in samples.items():
        if not want <= labels:
            continue
        if name == f"{family}_count":
            count += value
        elif name == f"{family}_sum":
            total += value
        elif name == f"{family}_bucket":
            le = float(dict(labels)["le"])
            buckets[le] = buckets.get(le, 0.0) + value
    return Histogram(count, total, tuple(sorted(buckets.items())))


def label_values(samples: Samples, family: str, label: str) -> set[str]:
    """Every value ``label`` takes in ``family``'s series (which webhooks or policies were called)."""
    return {dict(labels)[label] for (name, labels) in samples if name == f"{family}_count" and label in dict(labels)}


def spread(values: Iterable[float]) -> tuple[float, float, float]:
    """(median, lowest, highest) of per-round figures."""
    values = list(values)
    return statistics.median(values), min(values), max(values)


def ratios(rounds: list[Mapping[str, float]], name: str, floor: str) -> list[float]:
    """``name``'s figure over ``floor``'s, round by round (rounds missing either are left out)."""
    return [r[name] / r[floor] for r in rounds if r.get(name) and r.get(floor)]
