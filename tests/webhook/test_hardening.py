"""The attacks of issue 30 on the controller's listener, over real HTTPS on 127.0.0.1.

Each of these locked the controller out, or made it log tracebacks, before the fix: plain
connect-and-close calls and failed handshakes leaked connection slots (asyncio never
reports them to the application), a handshake that never comes held a socket for a
minute, concurrent large reviews had no global bound, TLS 1.2 with CBC suites was
accepted, and a body with a bad gzip encoding logged an unhandled exception.
Bounded in count and time like tests/webhook/test_abuse.py.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
import time

import orjson
import pytest

from gpufleet.webhook import server as webhook_server
from gpufleet.webhook import worker as worker_module
from gpufleet.webhook.budget import Budget
from gpufleet.webhook.worker import Worker
from tests.mutate.builders import volcano_job
from tests.webhook.abuse import read_response, tls_socket
from tests.webhook.conftest import start
from tests.webhook.harness import metric, wait_until
from tests.webhook.pki import Pki
from tests.webhook.reviews import review


@pytest.fixture
def capped(tmp_path):
    """A server with a small connection cap, a short handshake deadline and a small bytes-in-flight budget."""
    running = start(
        tmp_path, max_connections=5, handshake_timeout=0.5, max_body_bytes=100_000, max_inflight_bytes=250_000
    )
    running.client.close()  # the cap counts every connection: keep the shared one out of the way
    yield running
    running.client.close()
    running.server.stop()


def healthy(running) -> bool:
    try:
        return running.client.get("/readyz")[0] == 200
    except (ConnectionError, OSError):
        running.client.close()
        return False


def plain_connect_and_close(port: int) -> None:
    socket.create_connection(("127.0.0.1", port), timeout=5).close()


def handshake_with_the_wrong_ca(port: int, foreign_ca) -> None:
    context = ssl.create_default_context(cafile=str(foreign_ca))
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with pytest.raises(ssl.SSLError):
            context.wrap_socket(raw, server_hostname="127.0.0.1")


def test_plain_connect_and_close_calls_far_beyond_the_cap_never_lock_clients_out(capped):
    for _ in range(40):  # eight times the cap: a port scan or a TCP health check
        plain_connect_and_close(capped.server.port)
    assert wait_until(lambda: healthy(capped), timeout=5)


def test_clients_that_refuse_the_certificate_never_take_a_slot(capped, tmp_path):
    (tmp_path / "other").mkdir()
    foreign = Pki(tmp_path / "other")
    foreign.install()
    for _ in range(10):  # twice the cap
        handshake_with_the_wrong_ca(capped.server.port, foreign.ca_path)
    assert wait_until(lambda: healthy(capped), timeout=5)


def test_a_connection_that_never_starts_its_handshake_is_closed_at_the_handshake_timeout(capped):
    with socket.create_connection(("127.0.0.1", capped.server.port), timeout=5) as raw:
        started = time.monotonic()
        raw.settimeout(5)
        assert raw.recv(1) == b""  # closed by the server, not by our timeout
        assert time.monotonic() - started < 3.0


def test_handshaken_connections_are_still_capped_and_their_slots_come_back(capped):
    port, ca = capped.server.port, capped.pki.ca_path
    held = [tls_socket(port, ca) for _ in range(5)]
    extra = tls_socket(port, ca)
    extra.settimeout(2)
    try:
        assert extra.recv(1) == b""
    except (ConnectionError, ssl.SSLError):
        pass
    extra.close()
    for sock in held:
        sock.close()
    assert wait_until(lambda: healthy(capped), timeout=5)
    assert metric(capped.client.get("/metrics")[1], "gpufleet_connections_refused_total") >= 1


def start_upload(port: int, ca, length: int) -> ssl.SSLSocket:
    """A /validate call whose headers promise ``length`` bytes and whose body has barely begun."""
    sock = tls_socket(port, ca)
    sock.sendall(
        b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{" % length
    )
    return sock


def test_a_call_beyond_the_bytes_in_flight_is_answered_429_at_once_and_the_budget_comes_back(capped):
    port, ca = capped.server.port, capped.pki.ca_path
    uploads = [start_upload(port, ca, 100_000) for _ in range(2)]  # 200,000 of the 250,000 bytes
    time.sleep(0.2)
    third = start_upload(port, ca, 100_000)
    started = time.monotonic()
    answer = read_response(third, timeout=3.0)
    assert answer.startswith(b"HTTP/1.1 429") and b"Retry-After: 1" in answer, answer[:200]
    assert time.monotonic() - started < 1.0
    for sock in [*uploads, third]:
        sock.close()
    body = orjson.dumps(review(volcano_job(2)))
    assert wait_until(lambda: capped.client.request("POST", "/validate", body)[0] == 200, timeout=5)
    text = capped.client.get("/metrics")[1]
    assert metric(text, "gpufleet_admission_requests_total", endpoint="/validate", result="overloaded") == 1
    assert metric(text, "gpufleet_inflight_bytes") == 0


def test_the_budget_takes_what_fits_and_refuses_what_does_not():
    budget = Budget(10)
    assert budget.reserve(6) and not budget.reserve(5) and budget.reserve(4)
    budget.release(6)
    assert budget.used == 4 and budget.refused == 1 and budget.reserve(6)


def test_a_full_worker_queue_answers_503_at_once_without_queueing_the_body():
    worker = Worker(max_pending=2)
    worker.pending = 2  # two large reviews waiting already
    reply = asyncio.run(worker.check(0, None, "/validate", b"{}"))
    assert reply.status == 503 and reply.result == "overloaded" and worker._pool is None


def test_a_review_whose_deadline_passed_is_answered_503_and_not_checked():
    async def late() -> tuple:
        worker = Worker(max_pending=4)
        try:
            reply = await worker.check(0, None, "/validate", b"{}", deadline=time.monotonic() - 1)
            return reply, worker.pending
        finally:
            worker.shutdown()

    reply, pending = asyncio.run(late())
    assert reply.status == 503 and b"deadline" in reply.body and pending == 0


def test_the_worker_skips_a_call_whose_deadline_passed_while_it_waited():
    with pytest.raises(worker_module._Expired):
        worker_module._check(0, None, "/validate", b"{}", deadline=time.monotonic() - 0.001)


def test_only_tls_1_3_is_spoken(capped):
    old = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    old.load_verify_locations(str(capped.pki.ca_path))
    old.maximum_version = ssl.TLSVersion.TLSv1_2
    with socket.create_connection(("127.0.0.1", capped.server.port), timeout=5) as raw:
        with pytest.raises(ssl.SSLError):
            old.wrap_socket(raw, server_hostname="127.0.0.1")
    with tls_socket(capped.server.port, capped.pki.ca_path) as sock:
        assert sock.version() == "TLSv1.3"


def test_a_body_with_a_bad_gzip_encoding_is_a_400_and_no_traceback_in_the_log(capped, caplog):
    with caplog.at_level(logging.DEBUG):
        status, _, data = capped.client.request(
            "POST", "/validate", b"not gzip at all", headers={"Content-Encoding": "gzip"}
        )
        capped.client.close()
        time.sleep(0.2)
    assert status == 400 and b"Content-Encoding" in data
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], [
        r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info
    ]


@pytest.mark.parametrize(
    "argv, named",
    [
        (["--handshake-timeout", "0"], "--handshake-timeout"),
        (["--worker-queue", "0"], "--worker-queue"),
        (["--review-deadline", "60"], "--review-deadline"),
        (["--max-inflight-bytes", "5000", "--max-body-bytes", "8000"], "--max-inflight-bytes"),
    ],
)
def test_a_hardening_flag_out_of_range_exits_2_with_one_line(capsys, argv, named):
    assert webhook_server.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and named in err and "Traceback" not in err
