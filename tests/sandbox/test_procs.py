"""Sandbox processes are started with a log and stopped by their recorded PID only."""

from __future__ import annotations

import dataclasses
import platform
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpufleet.sandbox import procs
from gpufleet.sandbox.procs import Proc, StartError, alive, start, stop, stop_all, wait_until
from tests.sandbox.kernel import kernel_state

SLEEP = [sys.executable, "-c", "import time; print('started', flush=True); time.sleep(60)"]
SYS_EXIT = {"x86_64": 60, "aarch64": 93}.get(platform.machine())
ENGINE_LIKE = [
    sys.executable,
    "-c",
    f"""
import ctypes, os, signal, threading, time
def on_term(*_):  # the main thread leaves first and another thread exits the process later, as a Go engine may
    threading.Thread(target=lambda: (time.sleep(1.5), os._exit(0))).start()
    ctypes.CDLL(None).syscall({SYS_EXIT}, 0)
signal.signal(signal.SIGTERM, on_term)
print('started', flush=True)
while True:
    time.sleep(0.05)
""",
]


def _started(proc, log: Path) -> None:
    wait_until(proc, lambda: "started" in log.read_text(), timeout=20, what="started")


def test_a_started_process_runs_until_stopped_by_its_pid(tmp_path):
    proc = start("sleeper", SLEEP, tmp_path / "sleeper.log")
    assert alive(proc)
    stop(proc, grace=5)
    assert not alive(proc)


@pytest.mark.skipif(SYS_EXIT is None, reason="the thread-exit syscall number is known for x86_64 and aarch64 only")
def test_a_stopped_child_is_reaped_even_when_its_main_thread_exits_before_its_others(tmp_path):
    proc = start("engine", ENGINE_LIKE, tmp_path / "engine.log")
    _started(proc, tmp_path / "engine.log")
    stop(proc, grace=10)
    assert not alive(proc)
    time.sleep(0.5)
    assert kernel_state(proc.pid) == "gone"


@pytest.mark.parametrize("argv", [["sleep", "60"], SLEEP], ids=["sleep", "python"])
def test_a_stopped_child_leaves_no_zombie(tmp_path, argv):
    proc = start("sleeper", argv, tmp_path / "sleeper.log")
    stop(proc, grace=5)
    assert kernel_state(proc.pid) == "gone"


def test_a_child_that_exited_by_itself_is_reaped_when_the_next_process_starts(tmp_path):
    crasher = start("crasher", [sys.executable, "-c", "raise SystemExit(3)"], tmp_path / "crasher.log")
    deadline = time.monotonic() + 20
    while alive(crasher) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert kernel_state(crasher.pid) in ("Z", "gone")
    sleeper = start("sleeper", SLEEP, tmp_path / "sleeper.log")
    try:
        assert kernel_state(crasher.pid) == "gone"
    finally:
        stop(sleeper, grace=5)


def test_a_record_whose_start_time_does_not_match_is_never_signalled(tmp_path):
    proc = start("sleeper", SLEEP, tmp_path / "sleeper.log")
    try:
        reused = dataclasses.replace(proc, started=proc.started + 1)  # the PID now names another process
        assert not alive(reused)
        stop(reused, grace=1)
        assert alive(proc)
    finally:
        stop(proc, grace=5)


def test_a_process_that_exits_before_it_is_ready_fails_with_its_logs_tail(tmp_path):
    proc = start("crasher", [sys.executable, "-c", "print('bad flag --x'); raise SystemExit(3)"], tmp_path / "c.log")
    with pytest.raises(StartError, match="crasher exited before ready") as failed:
        wait_until(proc, lambda: False, timeout=20, what="ready")
    assert "bad flag --x" in str(failed.value)


def test_a_process_that_never_becomes_ready_fails_after_the_bounded_wait(tmp_path):
    proc = start("sleeper", SLEEP, tmp_path / "sleeper.log")
    try:
        with pytest.raises(StartError, match="did not reach ready within 1s"):
            wait_until(proc, lambda: False, timeout=1, what="ready")
    finally:
        stop(proc, grace=5)


def test_free_ports_are_distinct_below_the_ephemeral_range_and_free_to_bind():
    from gpufleet.sandbox.procs import _ephemeral_start, free_ports

    ports = free_ports(17)
    assert len(set(ports)) == 17 and all(10000 <= p < _ephemeral_start() for p in ports)
    for port in ports:
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))


def test_one_free_port_also_comes_from_below_the_ephemeral_range():
    from gpufleet.sandbox.procs import _ephemeral_start, free_port

    ports = {free_port() for _ in range(20)}
    assert all(10000 <= p < _ephemeral_start() for p in ports)
    for port in ports:
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))


SLOW_TO_STOP = [
    sys.executable,
    "-c",
    """
import signal, sys, time
def on_term(*_):  # note when SIGTERM came, take a second to shut down, note when done
    print('term', time.time(), flush=True); time.sleep(1.0); print('exit', time.time(), flush=True); sys.exit(0)
signal.signal(signal.SIGTERM, on_term)
print('started', flush=True)
while True:
    time.sleep(0.05)
""",
]


def _stamp(log: Path, what: str) -> float:
    return float(next(line.split()[1] for line in log.read_text().splitlines() if line.startswith(what)))


def test_stopping_several_signals_them_all_before_waiting_so_their_shutdowns_overlap(tmp_path):
    logs = [tmp_path / f"p{i}.log" for i in range(3)]
    procs = [start(f"p{i}", SLOW_TO_STOP, log) for i, log in enumerate(logs)]
    for proc, log in zip(procs, logs):
        _started(proc, log)
    stop_all(list(reversed(procs)), grace=10)
    assert not any(alive(p) for p in procs)
    assert max(_stamp(log, "term") for log in logs) < min(_stamp(log, "exit") for log in logs)
    assert all(kernel_state(p.pid) == "gone" for p in procs)


def test_a_wait_whose_budget_is_already_spent_still_probes_once(tmp_path):
    proc = start("sleeper", SLEEP, tmp_path / "sleeper.log")
    probes = []
    try:
        wait_until(proc, lambda: probes.append(1) or True, timeout=-5, what="ready")
        with pytest.raises(StartError, match="did not reach ready"):
            wait_until(proc, lambda: probes.append(1) and False, timeout=-5, what="ready")
    finally:
        stop(proc, grace=5)
    assert len(probes) == 2


def _exited_pid() -> int:
    """The PID of a process that has exited and been reaped (not this process's child any more)."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    return gone.pid


@pytest.mark.parametrize(
    "stopping", [lambda p: stop(p, grace=0.2), lambda p: stop_all([p], grace=0.2)], ids=["stop", "stop_all"]
)
def test_a_process_that_exits_between_the_check_and_the_signal_is_stopped_without_an_error(stopping, monkeypatch):
    record = Proc("gone", _exited_pid(), ("true",), "/dev/null", 1)
    answers = iter([True])  # alive when checked, gone by the time it is signalled
    monkeypatch.setattr(procs, "alive", lambda proc: next(answers, False))
    stopping(record)


GO_RACE = [
    sys.executable,
    "-c",
    "print('fatal error: concurrent map writes'); print('goroutine 1 [running]:'); raise SystemExit(2)",
]
BAD_FLAG = [sys.executable, "-c", "print('unknown flag --x'); raise SystemExit(2)"]


def _start_and_wait(tmp_path: Path, argvs: list[list[str]]):
    """A ``start_once`` that starts the next of ``argvs`` and waits until it runs (each start logs to one file)."""
    started: list[Proc] = []

    def start_once() -> Proc:
        proc = start("engine", argvs[len(started)], tmp_path / "engine.log")
        started.append(proc)
        wait_until(proc, lambda: "started" in (tmp_path / "engine.log").read_text(), timeout=20, what="ready")
        return proc

    return start_once, started


def test_a_start_that_dies_of_a_go_map_race_is_started_again_and_each_retry_is_told(tmp_path):
    start_once, started = _start_and_wait(tmp_path, [GO_RACE, GO_RACE, SLEEP])
    told: list[tuple[str, int]] = []
    proc = procs.retrying_races(start_once, lambda dead, attempt: told.append((dead.name, attempt)))
    try:
        assert alive(proc) and proc == started[-1]
        assert told == [("engine", 1), ("engine", 2)]
        assert not any(alive(p) for p in started[:-1])
    finally:
        stop(proc, grace=5)


@pytest.mark.parametrize(
    "argvs, why",
    [
        ([BAD_FLAG, SLEEP], "unknown flag --x"),  # not a race: the same argv would fail again
        ([GO_RACE] * procs.START_ATTEMPTS + [SLEEP], "concurrent map writes"),  # raced on every attempt
    ],
    ids=["another-crash", "race-every-time"],
)
def test_any_other_start_failure_and_a_race_on_the_last_attempt_propagate(tmp_path, argvs, why):
    start_once, started = _start_and_wait(tmp_path, argvs)
    with pytest.raises(StartError, match="engine exited before ready") as failed:
        procs.retrying_races(start_once, lambda dead, attempt: None)
    assert why in str(failed.value) and failed.value.proc == started[-1]
    assert len(started) == (1 if argvs[0] is BAD_FLAG else procs.START_ATTEMPTS)


def test_a_process_still_running_or_dead_of_something_else_did_not_die_of_a_go_race(tmp_path):
    running = start("sleeper", SLEEP, tmp_path / "s.log")
    try:
        assert not procs.died_of_go_race(running)
    finally:
        stop(running, grace=5)
    crashed = start("crasher", BAD_FLAG, tmp_path / "c.log")
    with pytest.raises(StartError):
        wait_until(crashed, lambda: False, timeout=20, what="ready")
    assert not procs.died_of_go_race(crashed)
