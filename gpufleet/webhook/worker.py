"""The worker process that checks expensive reviews, off the server's event loop and its GIL.

Started by the server (``gpufleet.webhook.server``) and called by the app
(``gpufleet.webhook.app``) for the reviews ``app.offloaded`` picks: bodies over 16 KiB
and ConfigMaps that carry a Kueue or Volcano configuration (YAML: about 2 ms per KiB).

Why a process and not a thread: a thread shares the GIL with the event loop, and
while it parsed a 15 KiB configuration (30-60 ms) every socket call of the loop gave
the GIL away for up to the switch interval, so every other request slowed two- to
threefold (docs/performance.md, "Under abuse"). A process of its own, at a lower CPU
priority (``nice`` +10), leaves the loop its core: the kernel runs the worker while the
loop waits, and preempts it when the loop has work.

The worker is spawned (not forked: the server has threads) when the server starts and
imports the rule engine once; until it is up (about a second), and while a new one
starts after a crash, the app checks every review on the loop as before. It gets the
fleet context with each call (about 1 KB pickled for a small fleet) and rebuilds its
check context only when the server's generation of the context changes. It only
answers; the server counts the answer in its metrics. Calls queue in order. If the
worker dies (say, killed for memory), the call is answered 500 and a new worker starts.

The queue is bounded, and every call has a deadline (issue 30): at most ``max_pending``
calls wait for or run in the worker (one more is answered 503 at once, result
``overloaded``), and a call not answered by its deadline (``--review-deadline`` after its
headers arrived, below the webhook's 3 s timeout) is answered 503 then and taken out of
the queue if the worker has not begun it; the worker skips a call whose deadline has
passed by the time it reaches it. Without these, 60 concurrent large reviews queued one
behind another for 3.7 s, every answer past the API server's timeout, each body held in
memory all along. ``time.monotonic`` is the system-wide ``CLOCK_MONOTONIC`` on Linux, so
server and worker read the same clock.

The worker never outlives its server (:func:`_exit_with_parent`). When the server is
killed (SIGKILL, the OOM killer, a crash) nothing tells the worker: it waits on its call
queue, whose pipe it holds both ends of, so it would wait forever. It watches the pipe
multiprocessing's spawn left it (``multiprocessing.parent_process().sentinel``: the read
end of a pipe whose only write end is in the server): the kernel closes that end when
the server process dies, however it dies, and the worker's watching thread exits it at
once. Chosen over the parent-death signal (``prctl(PR_SET_PDEATHSIG)``): that signal
follows the *thread* that spawned the worker, not the process (a worker respawned from
an executor thread that ends would be killed with it), is Linux-only and needs a check
for a server that died before the call; the pipe has neither problem.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import multiprocessing.connection
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from gpufleet.fleetctx.context import FleetContext
from gpufleet.webhook.registry import Registry, Reply, answer
from gpufleet.webhook.review import error_body

log = logging.getLogger("gpufleet.webhook")
NICE = 10  # CPU priority below the event loop's (0): the loop preempts the worker
MAX_PENDING = 16  # calls waiting for or in the worker; one more is answered 503 at once


def overloaded(message: str) -> Reply:
    """The 503 a call gets when the worker cannot answer it in time; the API server applies failurePolicy."""
    return Reply(503, error_body(message), "overloaded")


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


class Worker:
    """One worker process, started on :meth:`start` (or the first :meth:`check`)."""

    def __init__(
        self,
        echo: bool = False,
        max_body: int = 0,
        log_level: str = "info",
        ignore_rules: frozenset[str] | None = None,
        max_pending: int = MAX_PENDING,
        crds: tuple[str | None, bool] = (None, True),
    ) -> None:
        self.args = (echo, max_body, log_level, ignore_rules, crds)  # crds: gpufleet.settings.load_crds's arguments
        self.max_pending = max_pending
        self.pending = 0  # calls waiting for or in the worker
        self._pool: ProcessPoolExecutor | None = None
        self._started: Future[int] | None = None

    @property
    def ready(self) -> bool:
        """Whether the worker has started (until then the app checks every review on the loop)."""
        started = self._started
        return started is not None and started.done() and started.exception() is None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_init, initargs=self.args
            )
        return self._pool

    def start(self) -> Future[int]:
        """Spawn the worker now (it imports the rule engine: about a second); resolves to its pid."""
        self._started = self._executor().submit(os.getpid)
        return self._started

    async def check(
        self, generation: int, fleet: FleetContext | None, path: str, body: bytes, deadline: float = float("inf")
    ) -> Reply:
        """``registry.answer`` of the review in the worker process, or 503 when it cannot be by ``deadline``.

        ``deadline`` is a ``time.monotonic()`` reading.
        """
        if self.pending >= self.max_pending:
            return overloaded(
                f"the admission controller has {self.pending} large reviews queued; retry "
                "(another replica, or this one in a moment, answers)"
            )
        pool = self._executor()
        self.pending += 1
        try:
            call = asyncio.get_running_loop().run_in_executor(pool, _check, generation, fleet, path, body, deadline)
            # wait_for cancels the call on timeout: one the worker has not begun leaves the queue (and its body)
            timeout = None if deadline == float("inf") else max(0.0, deadline - time.monotonic())
            return await asyncio.wait_for(call, timeout=timeout)
        except (TimeoutError, _Expired):
            return overloaded("the admission controller could not check this review within its deadline; retry")
        except BrokenProcessPool:
            log.error(
                "the review worker process died while checking a %d-byte review on %s; starting a new one",
                len(body),
                path,
            )
            if self._pool is pool:
                self._pool = None
                self.start()
            return Reply(500, error_body("the admission controller's review worker died; retry"), "error")
        finally:
            self.pending -= 1

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._started = None


# In the worker process: the registry and the state it answers with.
_child: dict[str, Any] = {}


def _exit_with_parent() -> None:
    """Exit this worker process as soon as the server that spawned it is gone (see the module docstring)."""
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:  # not a spawned child: nothing to watch
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        log.warning("the server process %s is gone; the review worker exits", parent.pid)
        os._exit(0)  # no cleanup to do: the worker holds no state anyone will read

    threading.Thread(target=watch, name="gpufleet-parent-watch", daemon=True).start()


def _init(
    echo: bool,
    max_body: int,
    log_level: str,
    ignore_rules: frozenset[str] | None = None,
    crds: tuple[str | None, bool] = (None, True),
) -> None:
    _exit_with_parent()
    try:
        os.nice(NICE)
    except OSError:  # not allowed here: the worker still keeps the loop's GIL free
        pass
    logging.basicConfig(level=log_level.upper(), format=LOG_FORMAT)
    from gpufleet.settings import load_crds
    from gpufleet.webhook.handlers import build_registry  # the rule engine, imported once per worker
    from gpufleet.webhook.state import State

    state = State(crds=load_crds(crds[0], bundled=crds[1]))
    if max_body:
        state.max_body = max_body
    state.ignore_rules = ignore_rules
    _child.update(registry=build_registry(echo), state=state, generation=-1)


class _Expired(Exception):
    """Raised in the worker for a call whose deadline passed while it waited: nobody reads its answer."""


def _check(
    generation: int, fleet: FleetContext | None, path: str, body: bytes, deadline: float = float("inf")
) -> Reply:
    if time.monotonic() > deadline:
        raise _Expired()
    state = _child["state"]
    if generation != _child["generation"]:
        if fleet is None:
            state.fleet = None
        else:
            state.use_fleet(fleet)
        _child["generation"] = generation
    registry: Registry = _child["registry"]
    return answer(registry, state, path, body)
