"""A short-lived sample trainer for the end-to-end alert test: it uses gpufleet.steps as training code would.

    python tests/e2e/trainer.py PORT STEPS SECONDS

Serves the step reporter on 127.0.0.1:PORT, reports steps 1..STEPS (one every 0.2 s;
STEPS 0 = a wedged trainer that never completes a step), and exits after SECONDS.
"""

from __future__ import annotations

import sys
import time

from gpufleet import steps


def main(port: int, total: int, seconds: float) -> None:
    reporter = steps.Reporter(port=port, host="127.0.0.1", serve=True).start()
    deadline = time.monotonic() + seconds
    step = 0
    while time.monotonic() < deadline:
        if step < total:
            step += 1
            reporter.report_step(step)  # the one call per step
        time.sleep(0.2)
    reporter.stop()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]))
