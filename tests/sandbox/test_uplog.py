"""``up``'s step log: a process started early is still given its chance once the steps after its start are done."""

from __future__ import annotations

import sys
import time

from gpufleet.sandbox.procs import start, stop
from gpufleet.sandbox.uplog import UP_LOG, Steps

SLEEP = [sys.executable, "-c", "import time; time.sleep(60)"]


def test_a_process_begun_before_steps_that_outlasted_its_timeout_is_ready_when_its_probe_says_so(tmp_path):
    steps = Steps(tmp_path / "logs")
    proc = start("gang-admission-controller", SLEEP, tmp_path / "logs" / "controller.log")
    try:
        steps.begun(proc.name)
        steps._began[proc.name] -= 75  # the control plane, CRDs, nodes and engines took 75 s since it began
        steps.ready(proc, lambda: True, timeout=60)
    finally:
        stop(proc, grace=5)
    line = (tmp_path / "logs" / UP_LOG).read_text().splitlines()[-1]
    assert "gang-admission-controller ready in 75." in line


def test_each_logged_line_starts_with_the_seconds_since_up_began(tmp_path):
    steps = Steps(tmp_path / "logs")
    steps.began = time.monotonic() - 12.3
    steps.log("3 CRDs applied")
    assert (tmp_path / "logs" / UP_LOG).read_text().split() == ["12.3", "3", "CRDs", "applied"]
