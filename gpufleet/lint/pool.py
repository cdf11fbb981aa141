"""Worker processes for a large lint run: how many, and work shared with the calling process.

Called by :mod:`gpufleet.lint.runner` (``gpufleet lint --jobs N``; the default uses every
CPU the process may run on). A run of fewer than :data:`MIN_FILES` files, ``--jobs 1``, a
single CPU or a platform without ``fork`` runs serially: the workers are forked before
anything is loaded (they hold nothing of the run), so only Linux's ``fork`` start method
is used; elsewhere the linter stays in one process.

:func:`ordered` runs a function over chunks of work in the workers *and* the calling
process: the chunks are queued in order, the workers take them from the front, and the
caller takes the ones no worker has started from the back (a queued chunk that can still
be cancelled is the caller's), so neither waits while the other has work; the results come
back in chunk order whoever computed them. The function and its chunks and results travel
by pickle, so they must be module-level functions and plain data.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from concurrent.futures import Future, InvalidStateError, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence, TypeVar

C = TypeVar("C")
R = TypeVar("R")
MIN_FILES = 256  # below this a run is linted in one process (forking costs more than it saves)
MAX_JOBS = 64  # processes a run may ask for: each is a forked interpreter, and more than the CPUs only costs memory


def cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def workers(jobs: int, files: int) -> int:
    """How many worker processes a run of ``files`` files gets with ``--jobs jobs`` (0: one per CPU), besides the caller."""
    if jobs < 0 or jobs > MAX_JOBS:
        raise ValueError(f"--jobs must be 0 (one process per CPU) or a number of processes up to {MAX_JOBS}")
    wanted = cpus() if jobs == 0 else jobs
    if wanted <= 1 or files < MIN_FILES or not sys.platform.startswith("linux"):
        return 0
    if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover - every Linux build has it
        return 0
    return wanted - 1


@contextmanager
def executor(count: int) -> Iterator[ProcessPoolExecutor]:
    """``count`` forked worker processes (started at once, before the caller starts threads or loads anything).

    When a worker dies, CPython before 3.12 sets an exception on every pending future in its
    manager thread, cancelled ones too, which raises there and prints a traceback
    (python/cpython gh-107219, fixed in 3.12): that one error is not printed, the caller
    sees ``BrokenProcessPool`` from the futures it waits for.
    """
    previous = threading.excepthook

    def quiet(args: Any) -> None:
        if not (
            isinstance(args.exc_value, InvalidStateError) and type(args.thread).__name__ == "_ExecutorManagerThread"
        ):
            previous(args)

    threading.excepthook = quiet
    try:
        with ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("fork")) as pool:
            yield pool
    finally:
        threading.excepthook = previous


def ordered(pool: ProcessPoolExecutor, fn: Callable[[C], R], chunks: Sequence[C]) -> Iterator[R]:
    """``fn(chunk)`` for every chunk, in order; the workers take chunks from the front, the caller from the back."""
    futures = [pool.submit(fn, chunk) for chunk in chunks]
    return collect(futures, fn, chunks)


def collect(futures: list[Future[R]], fn: Callable[[C], R], chunks: Sequence[C]) -> Iterator[R]:
    """The results of ``futures`` (``fn`` over ``chunks``) in order, the caller computing the ones not yet started."""
    local: dict[int, R] = {}
    for i in range(len(futures) - 1, -1, -1):
        if not futures[i].cancel():
            break  # a worker has this one: the workers take chunks in order, so they have every one before it too
        local[i] = fn(chunks[i])
    for i, future in enumerate(futures):
        yield local.pop(i) if i in local else future.result()
