"""Kill one sandbox process as a crash would, and start it again as a supervisor would (issue 30's fault tier).

Called by ``gpufleet.sandbox.chaos`` (a fault run) and the e2e tier. :func:`kill` sends
SIGKILL to the *recorded* PID (after checking that PID still is that process: never by
name or pattern) and reaps it; :func:`restart` starts the same command line with the
same log, environment and folder as ``up`` did, replaces the record in ``state.json``
and waits for the same probe ``up`` waited for (``gpufleet.sandbox.health``). Etcd keeps
its data folder, so a restart is a crash recovery, not a fresh cluster.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from gpufleet.sandbox import health
from gpufleet.sandbox.pki import Pki
from gpufleet.sandbox.procs import Proc, alive, start, stop, wait_until
from gpufleet.sandbox.state import State


def _record(state: State, name: str) -> Proc:
    for proc in state.processes:
        if proc.name == name:
            return proc
    raise KeyError(
        f"the sandbox in {state.dir} runs no process named {name!r} "
        f"(it runs {', '.join(p.name for p in state.processes)})"
    )


def kill(state: State, name: str) -> Proc:
    """SIGKILL the process ``name`` by its recorded PID and reap it; returns its (now dead) record."""
    proc = _record(state, name)
    if alive(proc):
        os.kill(proc.pid, signal.SIGKILL)
    stop(proc, grace=0)  # the PID is gone or a zombie: this only reaps it
    return proc


def restart(state: State, name: str) -> float:
    """Start the killed process ``name`` again and wait until it is ready; returns the seconds that took."""
    old = _record(state, name)
    if alive(old):
        raise RuntimeError(f"{name} (pid {old.pid}) still runs: kill it first")
    began = time.monotonic()
    env = {**os.environ, "KUBECONFIG": state.kubeconfig}
    new = start(name, list(old.argv), Path(old.log), env=env, cwd=state.dir)
    state.processes[state.processes.index(old)] = new
    state.save()
    wait_until(new, health.ready(name, state.ports, Pki(state.dir / "pki")), health.timeout(name), "ready again")
    return time.monotonic() - began
