"""``paused()``: the cyclic garbage collector paused around bulk work that builds acyclic data.

Called by the linter (``gpufleet.lint.runner``: every document's YAML node is kept for line
look-up), ``gpufleet diff`` (two whole renderings alive at once) and ``gpufleet render``
(the CLI: validate and render a model, write every file). What they build are trees of
dicts, lists and strings with no reference cycles, so reference counting frees all of it;
the collector only walks the growing heap again and again (each automatic gen-2 pass visits
every live container), which made render grow faster than its input (issue 22,
bench/render_bench.py measures both). The previous state is restored on exit, the objects that
survive the block moved to the oldest generation; a process that ends next
(:mod:`gpufleet.util.lifetime`) leaves the collector off.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

from gpufleet.util import lifetime


@contextmanager
def paused() -> Iterator[None]:
    """Disable the cyclic collector for the ``with`` block (re-enabled after it if it was on).

    What survives the block goes straight to the oldest generation (:func:`_age`), so the
    collections that follow do not walk it again; in a process that ends next
    (:func:`gpufleet.util.lifetime.keeping`) the collector stays off.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled and not lifetime.keeping():
            _age()
            gc.enable()


def _age() -> None:
    """Move every object the collector tracks into its oldest generation, without walking them.

    After a long pause the youngest generation holds everything built during it (millions of
    objects after a large lint run): the first collections after it would walk all of them, one
    generation after the other (seconds after a 100,000-object lint run: docs/performance.md).
    ``freeze`` then ``unfreeze`` moves them in one step (CPython splices the lists); the oldest
    generation is walked only by full collections, which come once the objects promoted into it
    since the last one outnumber a quarter of what that one left there. Skipped when objects are frozen already (by a server, after its
    start-up): unfreezing would undo that.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
