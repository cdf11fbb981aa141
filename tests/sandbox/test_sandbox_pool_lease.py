"""The e2e tier's pool (tests/e2e/sandbox_pool.py) lends a sandbox again only when it is whole and unspoiled."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e import sandbox_pool
from tests.e2e.sandbox_pool import Pool


class FakeSandbox:
    def __init__(self) -> None:
        self.spoiled: list[str] = []
        self.stopped = False


@pytest.fixture
def pool(tmp_path, monkeypatch):
    started: list[FakeSandbox] = []
    stopped: list[FakeSandbox] = []

    @contextmanager
    def start(model, folder: Path, options):
        sb = FakeSandbox()
        started.append(sb)
        try:
            yield sb
        finally:
            stopped.append(sb)

    monkeypatch.setattr(Pool, "_drain", lambda self, sb: [])
    monkeypatch.setattr(sandbox_pool, "stopped", lambda sb: ["kueue stopped"] if sb.stopped else [])
    the_pool = Pool(tmp_path, start)
    the_pool.started, the_pool.stopped = started, stopped  # type: ignore[attr-defined]
    return the_pool


MODEL = {"pools": [], "teams": []}


def lease_twice(pool: Pool, spoil) -> tuple[FakeSandbox, FakeSandbox]:
    with pool.lease(MODEL) as first:
        spoil(first)
    with pool.lease(MODEL) as second:
        pass
    return first, second


def test_a_whole_clean_sandbox_is_lent_again(pool):
    first, second = lease_twice(pool, lambda sb: None)
    assert first is second and pool.stopped == [] and pool.retired == []


@pytest.mark.parametrize(
    "spoil, reason",
    [
        (lambda sb: sb.spoiled.append("deleted the CRDs of kinds Kueue integrates"), "deleted the CRDs"),
        (lambda sb: setattr(sb, "stopped", True), "kueue stopped"),
    ],
    ids=["spoiled by its module", "a process stopped"],
)
def test_a_spoiled_or_partly_stopped_sandbox_is_stopped_and_a_new_one_lent(pool, spoil, reason):
    first, second = lease_twice(pool, spoil)
    assert first is not second and pool.stopped == [first]
    assert len(pool.retired) == 1 and reason in pool.retired[0]


def test_stopped_reads_the_state_as_recorded_now(tmp_path):
    class Recorded:
        dir = tmp_path  # no state file: nothing recorded, nothing stopped

    class WithState:
        state = Recorded()

    assert sandbox_pool.stopped(WithState()) == [] and sandbox_pool.stopped(object()) == []
