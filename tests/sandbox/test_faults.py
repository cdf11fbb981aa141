"""Killing and restarting a sandbox process, with a stand-in: a small TCP listener recorded as KWOK.

The real components are killed and restarted in tests/e2e/test_faults_e2e.py; here the
mechanics: SIGKILL by the recorded PID, reaped, the same command line started again with
the same log, its record replaced in state.json, and the same readiness probe as ``up``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpufleet.sandbox import faults
from gpufleet.sandbox.probes import tcp_open
from gpufleet.sandbox.procs import alive, free_ports, start, stop, wait_until
from gpufleet.sandbox.state import State, load
from tests.sandbox.kernel import kernel_state

LISTENER = (
    "import socket, sys, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
    "s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(); print('listening', flush=True); time.sleep(600)"
)


@pytest.fixture
def sandbox(tmp_path):
    port = free_ports(1)[0]
    state = State(tmp_path, ports={"kwok": port})
    proc = state.add(
        start("kwok", [sys.executable, "-c", LISTENER, str(port)], tmp_path / "logs" / "kwok.log", cwd=tmp_path)
    )
    wait_until(proc, tcp_open(port), 30, "listening")  # as up waits for each process
    yield state
    for proc in state.processes:
        stop(proc, grace=1)


def test_a_killed_process_is_gone_and_reaped_not_left_a_zombie(sandbox):
    proc = faults.kill(sandbox, "kwok")
    assert not alive(proc) and kernel_state(proc.pid) == "gone"


def test_a_restarted_process_runs_the_same_command_with_a_new_record_and_answers_its_probe(sandbox):
    old = faults.kill(sandbox, "kwok")
    seconds = faults.restart(sandbox, "kwok")
    new = sandbox.processes[0]
    assert new.pid != old.pid and new.argv == old.argv and new.log == old.log and alive(new)
    assert load(sandbox.dir).processes[0].pid == new.pid
    assert 0 < seconds < 30
    assert Path(new.log).read_text().count("listening") == 2  # one log, both runs


def test_restarting_a_process_that_still_runs_is_refused(sandbox):
    with pytest.raises(RuntimeError, match="still runs"):
        faults.restart(sandbox, "kwok")


def test_killing_a_process_the_sandbox_does_not_run_names_those_it_does(sandbox):
    with pytest.raises(KeyError, match="kwok"):
        faults.kill(sandbox, "etcd")
