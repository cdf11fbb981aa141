"""The review worker process never outlives its server, however the server dies (issue 21, item 10)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import orjson
import pytest

from tests.mutate.builders import fleet_dict
from tests.webhook.harness import start_subprocess, wait_until
from tests.webhook.pki import MountedDir, Pki
from tests.webhook.test_shutdown import log_lines, wait_for_line

EXIT_WITHIN_SECONDS = 10.0  # the bound: the worker exits at once; this leaves room for a loaded machine


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def gone(pid: int) -> bool:
    """Whether ``pid`` has exited (no such process, or a zombie waiting for its new parent to reap it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc (Linux)")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGSEGV], ids=["SIGKILL", "crash (SIGSEGV)"])
def test_the_worker_exits_when_its_server_is_killed(tmp_path, how):
    pki = Pki(tmp_path)
    pki.install()
    mount = MountedDir(tmp_path / "fleet")
    mount.publish({"fleet-context.json": orjson.dumps(fleet_dict())})
    server = start_subprocess(
        [
            "--cert",
            str(pki.cert_path),
            "--key",
            str(pki.key_path),
            "--fleet-context",
            str(mount.path("fleet-context.json")),
            "--host",
            "127.0.0.1",
            "--port",
            "0",
        ]
    )
    started: list[int] = []
    try:
        wait_for_line(log_lines(server), r"serving https://127\.0\.0\.1:\d+", timeout=60)
        started = children(server.pid)
        workers = [pid for pid in started if "spawn_main" in cmdline(pid)]
        assert workers, f"no review worker among the server's children: {[cmdline(p) for p in started]}"
        os.kill(server.pid, how)
        server.wait(timeout=15)
        assert wait_until(lambda: all(gone(pid) for pid in started), timeout=EXIT_WITHIN_SECONDS), (
            f"still running after the server died: {[cmdline(p) for p in started if not gone(p)]}"
        )
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        for pid in started:  # only the processes this test's server started, by pid
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)
