"""``lifetime``: nothing is kept unless the process ends next; ``exit_now`` flushes and ends it with its code."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref

from gpufleet.util import lifetime


class Value:
    pass


def test_keep_holds_nothing_in_a_process_that_goes_on():
    assert not lifetime.keeping()
    value = Value()
    ref = weakref.ref(value)
    lifetime.keep(value)
    del value
    gc.collect()
    assert ref() is None


def run(probe: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from gpufleet.util import lifetime\n" + probe],
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_process_that_ends_next_keeps_what_it_is_given():
    done = run(
        "import weakref\nclass V: pass\nlifetime.keep_until_exit()\nv = V()\nr = weakref.ref(v)\n"
        "lifetime.keep(v)\ndel v\nprint(r() is not None)"
    )
    assert done.stdout.strip() == "True"


def test_exit_now_flushes_both_streams_and_exits_with_the_code():
    done = run("import sys\nsys.stdout.write('x' * 100000)\nsys.stderr.write('done')\nlifetime.exit_now(3)")
    assert (done.returncode, len(done.stdout), done.stderr) == (3, 100000, "done")
