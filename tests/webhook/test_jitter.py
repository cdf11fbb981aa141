"""Header and body deadlines are jittered, so stalled connections opened together are not cut together.

200 stalled connections cut in the same instant reconnect in the same instant: 200 TLS
handshakes in one event-loop iteration held it 100-175 ms (docs/performance.md, issue 11).
"""

from __future__ import annotations

import random
import threading
import time

import pytest

from gpufleet.webhook.connections import JITTER, jittered
from tests.webhook.abuse import closed_by_server, tls_socket
from tests.webhook.conftest import start


@pytest.mark.parametrize("timeout", [0.1, 10.0, 600.0])
def test_a_jittered_deadline_is_never_longer_than_configured_nor_shorter_than_the_jitter_floor(timeout):
    rng = random.Random(11)
    deadlines = [jittered(timeout, rng) for _ in range(2000)]
    assert all(JITTER * timeout <= d <= timeout for d in deadlines)
    assert max(deadlines) - min(deadlines) > 0.15 * timeout  # spread over the range, not one value


def test_slow_header_connections_opened_together_are_cut_at_different_times_within_the_timeout(tmp_path):
    running = start(tmp_path, header_timeout=1.0)
    cut_after: list[float] = []
    socks = [tls_socket(running.server.port, running.pki.ca_path) for _ in range(6)]

    def hold(sock) -> None:
        started = time.perf_counter()
        sock.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\n")  # and then nothing
        if closed_by_server(sock, within=5.0):
            cut_after.append(time.perf_counter() - started)

    threads = [threading.Thread(target=hold, args=(sock,)) for sock in socks]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
    finally:
        for sock in socks:
            sock.close()
        running.client.close()
        running.server.stop()
    assert len(cut_after) == 6 and all(JITTER - 0.05 <= t <= 1.5 for t in cut_after), cut_after
    assert max(cut_after) - min(cut_after) > 0.02, cut_after
