"""The sandbox's host processes: start with a log file, record the PID, stop by that PID only.

A process is recorded with its PID and its start time as the kernel counts it
(``/proc/PID/stat`` field 22), so a later ``down`` never signals a PID the system has
since given to another program: a record whose start time no longer matches is
treated as already gone. Nothing here finds processes by name or pattern.

A process this Python process started is its child and is stopped through its
``subprocess.Popen``: signalled, then waited for, so it is reaped and leaves no zombie
(``<defunct>``) behind in a long-lived caller such as the e2e tier. Waiting on the child,
not watching ``/proc``, matters: a Go engine's main thread can show as a zombie while its
other threads still exit, and the kernel reaps it only once they have. Each :func:`start`
also reaps the children that exited by themselves (a crash, a ``SIGKILL`` by PID).
Called by ``gpufleet.sandbox.up`` (start, wait, stop), ``gpufleet.sandbox.state`` and
``gpufleet.sandbox.faults``.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable


@dataclass(frozen=True)
class Proc:
    name: str
    pid: int
    argv: tuple[str, ...]
    log: str
    started: int
    """The process's start time in clock ticks since boot (``/proc/PID/stat`` field 22)."""

    def as_dict(self) -> dict:
        return {**asdict(self), "argv": list(self.argv)}

    @classmethod
    def from_dict(cls, d: dict) -> Proc:
        return cls(d["name"], int(d["pid"]), tuple(d["argv"]), d["log"], int(d["started"]))


def free_port() -> int:
    """A TCP port on 127.0.0.1 free right now, below the kernel's ephemeral range (:func:`free_ports`).

    Several ports needed at once come from one :func:`free_ports` call: two calls of this one
    can pick the same port when nothing listens on the first yet.
    """
    return free_ports(1)[0]


LOWEST_PORT = 10000
EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")


def _ephemeral_start() -> int:
    try:
        return int(EPHEMERAL.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default range is 32768-60999


def free_ports(count: int) -> list[int]:
    """``count`` distinct TCP ports on 127.0.0.1, free right now, below the kernel's ephemeral range.

    Not :func:`free_port` ``count`` times: the kernel picks port 0 binds from the ephemeral
    range, the range its outgoing connections take their source ports from, so a client
    connecting to the API server could take a port before the component meant to listen on
    it started (seen: ``bind: address already in use`` from Kueue), and two picks of it can be
    the same port once the first socket is closed. These come from below that range and are
    held bound together until all are chosen.
    """
    top, rng = _ephemeral_start(), random.Random()
    low = LOWEST_PORT if top > LOWEST_PORT + 1000 else 1024  # a range configured low: what lies below it
    held: list[socket.socket] = []
    tried: set[int] = set()
    try:
        while len(held) < count and len(tried) < top - low:
            port = rng.randrange(low, top)
            if port in tried:
                continue
            tried.add(port)
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                s.close()
                continue
            held.append(s)
        if len(held) < count:
            raise OSError(f"fewer than {count} free TCP ports on 127.0.0.1 between {low} and {top}")
        return [s.getsockname()[1] for s in held]
    finally:
        for s in held:
            s.close()


def _start_ticks(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "
    return None if fields[0] == "Z" else int(fields[19])


def alive(proc: Proc) -> bool:
    """True while the recorded process (same PID and start time) runs and is not a zombie."""
    return _start_ticks(proc.pid) == proc.started


def start(name: str, argv: list[str], log: Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> Proc:
    """Start ``argv`` in its own session, stdout and stderr to ``log``; reap the children that have exited."""
    reap()
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        child = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
    ticks = _start_ticks(child.pid)
    proc = Proc(name, child.pid, tuple(argv), str(log), ticks if ticks is not None else -1)
    _children[child.pid] = (child, proc.started)
    return proc


_children: dict[int, tuple[subprocess.Popen, int]] = {}
"""This process's children not yet reaped, by PID, with their start time (an unreaped child's PID is never reused)."""

KILL_WAIT = 30.0
"""Seconds to wait for a child to be reaped after ``SIGKILL``; one still there stays tracked for :func:`reap`."""


def reap() -> list[int]:
    """Reap every child of this process that has exited; the PIDs reaped."""
    done = [pid for pid, (child, _) in _children.items() if child.poll() is not None]
    for pid in done:
        del _children[pid]
    return done


def _own(proc: Proc) -> subprocess.Popen | None:
    entry = _children.get(proc.pid)
    return entry[0] if entry is not None and entry[1] == proc.started else None


def _stop_child(proc: Proc, child: subprocess.Popen, grace: float, term: bool = True) -> None:
    """SIGTERM, wait ``grace`` seconds, SIGKILL, wait: ``Popen`` signals only an unreaped child, and waiting reaps it."""
    try:
        if term:
            child.send_signal(signal.SIGTERM)
        try:
            child.wait(grace)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(KILL_WAIT)
    except subprocess.TimeoutExpired:
        return  # not reaped yet (stuck in the kernel): still tracked, a later reap() collects it
    _children.pop(proc.pid, None)


def _signal(proc: Proc, sig: int) -> bool:
    """Send ``sig`` to the recorded PID (checked :func:`alive` just before); False when it exited in between."""
    try:
        os.kill(proc.pid, sig)
    except ProcessLookupError:
        return False
    return True


def stop(proc: Proc, grace: float = 10.0, term: bool = True) -> None:
    """SIGTERM the recorded PID, then SIGKILL after ``grace`` seconds; a gone or reused PID is left alone.

    A child of this process is also waited for, so it is reaped; one another process started
    (``down`` from the CLI) is reaped by its own parent or by init. ``term=False``: already
    sent (:func:`stop_all`), only wait and SIGKILL.
    """
    child = _own(proc)
    if child is not None:
        _stop_child(proc, child, grace, term)
        return
    if not alive(proc) or (term and not _signal(proc, signal.SIGTERM)):
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not alive(proc):
            return
        time.sleep(0.1)
    if alive(proc) and not _signal(proc, signal.SIGKILL):
        return
    for _ in range(50):
        if not alive(proc):
            return
        time.sleep(0.1)


def stop_all(procs: list[Proc], grace: float = 10.0) -> None:
    """Stop ``procs``: SIGTERM each one still running, in the given order, then wait for each as :func:`stop` does,
    so that their shutdowns overlap (a sandbox's dozen processes took 7 s one after another)."""
    signalled = []
    for proc in procs:
        child = _own(proc)
        if child is not None and child.poll() is None:
            child.send_signal(signal.SIGTERM)
            signalled.append(proc)
        elif child is None and alive(proc) and _signal(proc, signal.SIGTERM):
            signalled.append(proc)
    for proc in procs:
        stop(proc, grace, term=proc not in signalled)


def log_tail(proc: Proc, lines: int = 15) -> str:
    try:
        text = Path(proc.log).read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join(text[-lines:])


class StartError(RuntimeError):
    """A process exited or never became ready; the message names it and ends with its log's tail (``proc``: which)."""

    def __init__(self, message: str, proc: Proc | None = None) -> None:
        super().__init__(message)
        self.proc = proc


GO_MAP_RACES = ("fatal error: concurrent map writes", "fatal error: concurrent map read and map write")
"""The Go runtime's own words for a data race on a map, which it never recovers from. KWOK v0.8.0 can die so while
it starts: two goroutines register CEL types at once (``github.com/wzshiming/easycel@v0.6.0`` ``types.go:137``
``getTrait``, from ``pkg/kwok/server/metrics.go:39`` ``initCEL``; seen in a clean-clone run on 4 Dec 2026)."""
START_ATTEMPTS = 3
"""How many times :func:`retrying_races` starts a process that keeps dying of a :data:`GO_MAP_RACES` race."""


RACE_TAIL = 64 * 1024
"""Bytes at the end of a log that :func:`died_of_go_race` reads (the race's line comes before its goroutine dump)."""


def died_of_go_race(proc: Proc) -> bool:
    """Whether ``proc`` has exited and the end of its log shows a Go runtime map race (:data:`GO_MAP_RACES`)."""
    if alive(proc):
        return False
    try:
        with open(proc.log, "rb") as log:
            log.seek(max(0, log.seek(0, os.SEEK_END) - RACE_TAIL))
            tail = log.read().decode(errors="replace")
    except OSError:
        return False
    return any(words in tail for words in GO_MAP_RACES)


def retrying_races(start_once: Callable[[], Proc], retried: Callable[[Proc, int], None]) -> Proc:
    """``start_once()`` (start a process, wait until it is ready), started again while it dies of a Go runtime map race.

    A race is chance, not a bad flag: the next start of the same argv almost always succeeds. Any other
    :class:`StartError`, and the race on the last of :data:`START_ATTEMPTS`, propagate. ``retried(dead, attempt)``
    is told of each dead process before the next start (to forget it and log why).
    """
    for attempt in range(1, START_ATTEMPTS + 1):
        try:
            return start_once()
        except StartError as failed:
            if attempt == START_ATTEMPTS or failed.proc is None or not died_of_go_race(failed.proc):
                raise
            retried(failed.proc, attempt)
    raise AssertionError("unreachable: the last attempt returns or raises")


def wait_until(proc: Proc, ready: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``ready`` until true; fail early if the process dies, or after ``timeout`` seconds, having probed at
    least once: a budget the steps before already spent (``timeout`` zero or less) still asks whether it is ready."""
    deadline = time.monotonic() + timeout
    while True:
        if not alive(proc):
            raise StartError(f"{proc.name} exited before {what} (log {proc.log}):\n{log_tail(proc)}", proc)
        try:
            if ready():
                return
        except Exception:  # noqa: BLE001 - not ready yet (connection refused, 503, ...)
            pass
        if time.monotonic() >= deadline:
            break
        time.sleep(0.25)
    raise StartError(
        f"{proc.name} did not reach {what} within {timeout:.0f}s (log {proc.log}):\n{log_tail(proc)}", proc
    )
