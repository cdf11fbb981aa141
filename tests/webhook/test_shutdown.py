"""SIGTERM: drain with ``Connection: close``, close keep-alive connections, exit 0."""

from __future__ import annotations

import http.client
import queue
import re
import signal
import threading

import orjson
import pytest

from tests.mutate.builders import fleet_dict, volcano_job
from tests.webhook.conftest import start
from tests.webhook.harness import Client, start_subprocess
from tests.webhook.pki import MountedDir, Pki
from tests.webhook.reviews import review


def log_lines(process) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stderr], daemon=True).start()
    return lines


def wait_for_line(lines: queue.Queue[str], pattern: str, timeout: float = 15.0) -> re.Match[str]:
    seen = []
    while True:
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no log line matching {pattern!r}; got:\n{''.join(seen)}") from None
        seen.append(line)
        if match := re.search(pattern, line):
            return match


@pytest.fixture
def files(tmp_path):
    pki = Pki(tmp_path)
    pki.install()
    mount = MountedDir(tmp_path / "fleet")
    mount.publish({"fleet-context.json": orjson.dumps(fleet_dict())})
    return pki, mount.path("fleet-context.json")


def test_sigterm_drains_with_connection_close_then_exits_zero(files):
    pki, fleet_path = files
    process = start_subprocess(
        [
            "--cert",
            str(pki.cert_path),
            "--key",
            str(pki.key_path),
            "--fleet-context",
            str(fleet_path),
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--shutdown-delay",
            "1.5",
        ]
    )
    try:
        lines = log_lines(process)
        port = int(wait_for_line(lines, r"serving https://127\.0\.0\.1:(\d+)").group(1))
        client = Client(port, pki.ca_path)
        status, headers, _ = client.request("POST", "/validate", orjson.dumps(review(volcano_job(2))))
        assert status == 200 and headers.get("connection", "").lower() != "close"
        process.send_signal(signal.SIGTERM)
        wait_for_line(lines, "shutting down")
        status, headers, _ = client.request("POST", "/validate", orjson.dumps(review(volcano_job(2))))
        assert status == 200 and headers["connection"].lower() == "close"
        assert client.get("/readyz")[0] == 503
        assert process.wait(timeout=15) == 0
        with pytest.raises(OSError):
            Client(port, pki.ca_path).get("/healthz")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_an_idle_keep_alive_connection_is_closed_when_the_server_stops(tmp_path):
    running = start(tmp_path)
    assert running.client.get("/healthz")[0] == 200
    running.server.stop()
    assert running.server.exit_code == 0
    with pytest.raises((ConnectionError, http.client.HTTPException, OSError)):
        running.client.get("/healthz")


def test_unusable_tls_files_exit_1_with_a_message_naming_them(tmp_path, files):
    _, fleet_path = files
    process = start_subprocess(
        [
            "--cert",
            str(tmp_path / "missing.crt"),
            "--key",
            str(tmp_path / "missing.key"),
            "--fleet-context",
            str(fleet_path),
            "--port",
            "0",
        ]
    )
    _, err = process.communicate(timeout=30)
    assert process.returncode == 1 and "missing.crt" in err and "Traceback" not in err


def test_a_bad_environment_value_exits_2_with_the_variable_named(files):
    import os
    import subprocess
    import sys

    from tests.webhook.harness import REPO

    result = subprocess.run(
        [sys.executable, "-m", "gpufleet.webhook"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "GPUFLEET_PORT": "https"},
        timeout=30,
    )
    assert result.returncode == 2 and "GPUFLEET_PORT" in result.stderr and "Traceback" not in result.stderr
