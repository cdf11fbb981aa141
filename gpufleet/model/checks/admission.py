"""Gang admission: waitForPodsReady against cold starts, requeue backoff, frameworks.

An admitted gang that is not fully ready within ``waitForPodsReady.timeout`` is
evicted and requeued; a timeout shorter than a pool's cold start (image pull plus
rendezvous) evicts every healthy gang before it starts, forever. The timeout must be
at least every pool's ``coldStartBudget`` and ``admission.coldStartFloor``. A
``recoveryTimeout`` above the timeout is rejected: a running gang that lost a rank
holds all its GPUs idle while it waits for one replacement pod, which should never
take longer than the whole gang's first start. Kueue's config validation rejects
unknown or duplicate framework names. Registered in ``CHECKS``.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from gpufleet.kubetypes.durations import format_seconds, timeout_shortfalls
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.admission import KUEUE_FRAMEWORKS
from gpufleet.model.checks.choices import known_once
from gpufleet.model.fleet import Fleet
from gpufleet.yamlin.errors import Issue

WFPR = FieldPath.of("admission", "waitForPodsReady")


def _timeouts(fleet: Fleet) -> Iterator[Issue]:
    adm = fleet.admission
    wait = adm.wait_for_pods_ready
    timeout = format_seconds(wait.timeout)
    budgets = [(i, pool.name, pool.cold_start_budget) for i, pool in enumerate(fleet.pools)]
    for short in timeout_shortfalls(wait.timeout, adm.cold_start_floor, budgets):
        needed = format_seconds(short.seconds)
        if short.pool is None:
            yield Issue(
                WFPR.child("timeout"),
                f"timeout {timeout} is below admission.coldStartFloor {needed}",
                f"set timeout to at least {needed}",
            )
        else:
            yield Issue(
                WFPR.child("timeout"),
                f"timeout {timeout} is below pools[{short.pool[0]}] ({short.pool[1]!r}) coldStartBudget {needed}: its gangs would be evicted before they can start",
                f"set timeout to at least {needed}",
            )
    if wait.recovery_timeout is not None and wait.recovery_timeout > wait.timeout:
        yield Issue(
            WFPR.child("recoveryTimeout"),
            f"recoveryTimeout {format_seconds(wait.recovery_timeout)} is longer than timeout {timeout}: a gang that lost a rank would hold its GPUs idle longer than a first start may take",
            "set recoveryTimeout at most timeout, or leave it unset (= timeout)",
        )


def _backoff(fleet: Fleet) -> Iterator[Issue]:
    rq = fleet.admission.wait_for_pods_ready.requeuing_strategy
    if rq.backoff_base_seconds > rq.backoff_max_seconds:
        yield Issue(
            WFPR.child("requeuingStrategy", "backoffBaseSeconds"),
            f"backoffBaseSeconds {rq.backoff_base_seconds} is above backoffMaxSeconds {rq.backoff_max_seconds}",
            "set backoffBaseSeconds at most backoffMaxSeconds",
        )


def _frameworks(fleet: Fleet) -> Iterator[Issue]:
    return known_once(fleet.admission.frameworks, KUEUE_FRAMEWORKS, "admission", "frameworks", "Kueue", "framework")


def check(fleet: Fleet) -> Iterable[Issue]:
    yield from _timeouts(fleet)
    yield from _backoff(fleet)
    yield from _frameworks(fleet)
