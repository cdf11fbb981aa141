"""Short-lived sample trainers for the end-to-end alert test: they use gpufleet.steps as training code would.

    python tests/e2e/trainer.py MODE SECONDS

The reporter's port and bind address come from ``GPUFLEET_STEPS_PORT`` and
``GPUFLEET_STEPS_HOST`` (the test sets 127.0.0.1). Every mode calls ``steps.start()``
first, then:

- ``stuck``: never completes a step (a wedged rendezvous);
- ``training``: reports steps 1, 2, ... every 0.2 s;
- ``restarting``: an agent like ``torchrun --max-restarts``: runs a worker process that
  steps; on SIGUSR1 (the test sends it once Prometheus has seen a step) the worker dies
  (SIGKILL, by its PID) and the agent restarts it in place (same pod, same port, new
  process); the restarted worker serves step 0 and never steps again.

Each process exits after SECONDS; the agent also stops its worker (by PID) on SIGTERM.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time

from gpufleet import steps

RESTART_DELAY = 0.5


def _serve(total: int, seconds: float) -> None:
    steps.start()
    deadline = time.monotonic() + seconds
    step = 0
    while time.monotonic() < deadline:
        if step < total:
            step += 1
            steps.report_step(step)  # the one call per step
        time.sleep(0.2)


def _worker(mode: str, seconds: float) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, __file__, mode, str(max(seconds, 1.0))])


def _agent(seconds: float) -> None:
    deadline = time.monotonic() + seconds
    crash = threading.Event()
    worker = [_worker("training", seconds)]

    def stop(*_: object) -> None:
        worker[0].terminate()
        worker[0].wait(timeout=10)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGUSR1, lambda *_: crash.set())
    if crash.wait(timeout=seconds):
        worker[0].kill()  # the rank dies
        worker[0].wait(timeout=10)
        time.sleep(RESTART_DELAY)
        worker[0] = _worker("stuck", deadline - time.monotonic())  # restarted in place: rendezvous hangs
    worker[0].wait(timeout=seconds)


def main(mode: str, seconds: float) -> None:
    if mode == "restarting":
        _agent(seconds)
    else:
        _serve({"stuck": 0, "training": 10**9}[mode], seconds)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
