"""Queue waits, with the jobs still waiting at the horizon, and the percentiles the report gives of them.

A job that started waited from its submission to its start. A job submitted before the horizon that had not started
by then is **not** left out: it counts with its wait so far (horizon minus submission), marked *censored*, a lower
bound on its true wait. A job the API server refused never queued and has no wait. A figure (p50, p95, max) is
censored when some censored wait is at or below it: true waits can only be longer, so the figure is a lower bound
(``≥`` in the report). Percentiles are **nearest-rank**: the p-th percentile of n waits is the ``ceil(p/100 × n)``-th
smallest, a wait some job actually had; never an interpolation between two jobs. Called by
:mod:`gpufleet.whatif.metrics` (the team figures) and :mod:`gpufleet.whatif.perjob` (the per-job table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Wait:
    seconds: float
    censored: bool
    """Not started by the horizon: ``seconds`` is the wait so far, a lower bound."""


def job_wait(submitted: float, began: float | None, horizon: float, refused: bool) -> Wait | None:
    """The wait of one job: to its start, or (censored) to the horizon; None when it never queued before the horizon."""
    if refused or submitted >= horizon:
        return None
    if began is not None:
        return Wait(began - submitted, False)
    return Wait(horizon - submitted, True)


def nearest_rank(values: Sequence[float], q: float) -> float | None:
    """The nearest-rank ``q`` quantile (0 < q <= 1): the ``ceil(q × n)``-th smallest value, one of ``values``."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered) - 1e-9) - 1)]


def figure(waits: Sequence[Wait], q: float) -> tuple[float | None, bool]:
    """(the nearest-rank ``q`` quantile of the waits, whether it is a lower bound)."""
    value = nearest_rank([w.seconds for w in waits], q)
    if value is None:
        return None, False
    return value, any(w.censored and w.seconds <= value for w in waits)
