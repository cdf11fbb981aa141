"""``gcpause.paused``: the collector is off inside, back on after, and what survives is moved to the oldest generation."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from gpufleet.util import gcpause


class Node:
    """A tracked container (a class instance is tracked by the collector from its creation)."""


def generation_of(obj: object) -> int | None:
    for generation in range(3):
        if any(o is obj for o in gc.get_objects(generation=generation)):
            return generation
    return None


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_the_collector_is_off_inside_and_on_again_after(collector_on):
    with gcpause.paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off(collector_on):
    gc.disable()
    with gcpause.paused():
        pass
    assert not gc.isenabled()


def test_what_the_block_built_is_in_the_oldest_generation_after_it(collector_on):
    with gcpause.paused():
        built = Node()
        assert generation_of(built) == 0
    assert generation_of(built) == 2 and gc.get_freeze_count() == 0


def test_objects_frozen_before_stay_frozen(collector_on):
    gc.freeze()
    try:
        frozen_before = gc.get_freeze_count()
        with gcpause.paused():
            built = Node()
        assert gc.get_freeze_count() == frozen_before and generation_of(built) == 0  # left where the collector put it
    finally:
        gc.unfreeze()


def test_a_process_that_ends_next_leaves_the_collector_off():
    probe = (
        "import gc\nfrom gpufleet.util import gcpause, lifetime\nlifetime.keep_until_exit()\n"
        "with gcpause.paused():\n    pass\nprint(gc.isenabled())"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
