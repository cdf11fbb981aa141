"""Sandbox processes are started with a log and stopped by their recorded PID only."""

from __future__ import annotations

import dataclasses
import socket
import sys

import pytest

from gpufleet.sandbox.procs import StartError, alive, start, stop, wait_until

SLEEP = [sys.executable, "-c", "import time; print('started', flush=True); time.sleep(60)"]


def test_a_started_process_runs_until_stopped_by_its_pid(tmp_path):
    proc = start("sleeper", SLEEP, tmp_path / "sleeper.log")
    assert alive(proc)
    stop(proc, grace=5)
    assert not alive(proc)


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
