"""``paused()``: the cyclic garbage collector paused around bulk work that builds acyclic data.

Called by the linter (``gpufleet.lint.runner``: every document's YAML node is kept for line
look-up), ``gpufleet diff`` (two whole renderings alive at once) and ``gpufleet render``
(the CLI: validate and render a model, write every file). What they build are trees of
dicts, lists and strings with no reference cycles, so reference counting frees all of it;
the collector only walks the growing heap again and again (each automatic gen-2 pass visits
every live container), which made render grow faster than its input (issue 22,
bench/render_bench.py measures both). The previous state is restored on exit.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def paused() -> Iterator[None]:
    """Disable the cyclic collector for the ``with`` block (re-enabled after it if it was on)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
