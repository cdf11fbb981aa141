"""``gpufleet whatif trace synth``: a seeded synthetic trace whose team mix comes from the model.

Called by the CLI and the benchmark. The same model, ``--jobs``, ``--hours`` and
``--seed`` give the same trace, byte for byte (``random.Random(seed)``, no other source).
The shape follows what the published GPU-cluster trace studies report, and the numbers
below are gpufleet's defaults, not a fit (docs/whatif.md lists each with its basis; fit
your own cluster with ``trace from-cluster``):

- teams submit in proportion to their nominal GPU quota (the model is the team mix);
- arrivals are a Poisson process whose rate follows the working day
  (:data:`HOURLY_RATE`; Hu et al., SC'21, report diurnal submission in Helios);
- a job's GPU count is a power of two, smaller ones far more frequent
  (:data:`SIZE_EXPONENT`; Jeon et al., ATC'19 on Philly and Hu et al. both report that most
  jobs use few GPUs while most GPU time goes to the large ones), capped at what the team
  may ever hold on the pool (nominal plus borrowing limit) so that every job can start;
- run times are log-normal (:data:`RUN_MEDIAN_SECONDS`, :data:`RUN_SIGMA`; both studies
  report heavy-tailed durations spanning minutes to days), clipped to
  [:data:`RUN_MIN_SECONDS`, :data:`RUN_MAX_SECONDS`];
- :data:`FAILURE_SHARE` of jobs lose a rank part-way (``failAtSeconds``), exercising the
  job-level restart.
"""

from __future__ import annotations

import math
import random

from gpufleet.model import ownership
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.model.teams import Team
from gpufleet.whatif.trace import TraceJob

HOURLY_RATE = (
    0.4,
    0.3,
    0.3,
    0.3,
    0.3,
    0.4,
    0.6,
    0.9,
    1.2,
    1.5,
    1.6,
    1.5,
    1.3,
    1.5,
    1.6,
    1.6,
    1.5,
    1.3,
    1.1,
    1.0,
    0.9,
    0.8,
    0.6,
    0.5,
)
"""Relative submission rate per hour of the trace's day (mean 1.0 over the day)."""
SIZE_EXPONENT = 1.0
"""P(GPUs = g) is proportional to g ** -SIZE_EXPONENT over g = 1, 2, 4, ... up to the cap."""
RUN_MEDIAN_SECONDS = 1800.0
RUN_SIGMA = 1.4
RUN_MIN_SECONDS = 300.0
RUN_MAX_SECONDS = 48 * 3600.0
FAILURE_SHARE = 0.05


def _gpus_per_node(pool: Pool) -> int:
    return max(1, int(pool.allocatable.get(pool.gpu_resource, 1)))


def _cap(fleet: Fleet, team: Team, pool: Pool) -> int:
    quota = team.quota[pool.name]
    borrow = quota.borrowing_limit
    ceiling = float(quota.nominal) + (float(borrow) if borrow is not None and team.cohort else 0.0)
    if borrow is None and team.cohort:
        ceiling = pool.node_count * _gpus_per_node(pool)
    return max(1, min(int(ceiling), pool.node_count * _gpus_per_node(pool)))


def _choices(fleet: Fleet) -> list[tuple[Team, Pool, str, float]]:
    """(team, pool, namespace, weight): every team pool with nominal GPUs, its first namespace of that engine."""
    out = []
    for team in fleet.teams:
        for name, quota in team.quota.items():
            pool = fleet.pool(name)
            if pool is None or float(quota.nominal) <= 0 or pool.system == "coscheduling":
                continue
            spaces = (ownership.volcano_namespaces if pool.system == "volcano" else ownership.kueue_namespaces)(
                fleet, team
            )
            if spaces:
                out.append((team, pool, spaces[0], float(quota.nominal)))
    return out


def _size(rng: random.Random, cap: int) -> int:
    sizes = [2**i for i in range(int(math.log2(cap)) + 1)]
    return rng.choices(sizes, weights=[s**-SIZE_EXPONENT for s in sizes])[0]


def _arrivals(rng: random.Random, jobs: int, hours: float) -> list[float]:
    """``jobs`` submit times over ``hours``, by thinning a Poisson process with the hourly rates."""
    peak = max(HOURLY_RATE)
    out: list[float] = []
    span = hours * 3600.0
    while len(out) < jobs:
        t = rng.uniform(0, span)
        if rng.random() * peak <= HOURLY_RATE[int(t // 3600) % 24]:
            out.append(round(t, 1))
    return sorted(out)


def synth(fleet: Fleet, jobs: int, hours: float, seed: int) -> list[TraceJob]:
    """A trace of ``jobs`` jobs over ``hours`` trace hours for ``fleet``'s teams; empty when no team has GPU quota."""
    rng = random.Random(seed)
    choices = _choices(fleet)
    if not choices:
        return []
    out = []
    for index, submit in enumerate(_arrivals(rng, jobs, hours)):
        team, pool, namespace, _ = rng.choices(choices, weights=[c[3] for c in choices])[0]
        per_node = _gpus_per_node(pool)
        gpus = _size(rng, _cap(fleet, team, pool))
        pods, per_pod = (1, gpus) if gpus <= per_node else (math.ceil(gpus / per_node), per_node)
        run = min(RUN_MAX_SECONDS, max(RUN_MIN_SECONDS, rng.lognormvariate(math.log(RUN_MEDIAN_SECONDS), RUN_SIGMA)))
        fail = round(run * rng.uniform(0.1, 0.9), 1) if rng.random() < FAILURE_SHARE else None
        out.append(
            TraceJob(
                submit_seconds=submit,
                namespace=namespace,
                kind="VolcanoJob" if pool.system == "volcano" else "Job",
                pods=pods,
                gpus_per_pod=per_pod,
                run_seconds=round(run, 1),
                name=f"s{index}",
                pool=pool.name,
                fail_at_seconds=fail,
            )
        )
    return out
