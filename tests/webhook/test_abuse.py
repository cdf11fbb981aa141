"""The controller under hostile input and slow clients, over real HTTPS on 127.0.0.1 (issue 11).

Each test is bounded in count and time. Cases: huge quantities, big integers, a rule that
crashes, slow headers, slow and aborted bodies, idle and excess connections, an upload
cut by shutdown, a fleet context of the wrong shape, an expired or foreign certificate,
and flags out of range.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
import time

import orjson
import pytest

from gpufleet.rules.gpus import gang402_pod_exceeds_node
from gpufleet.webhook import server as webhook_server
from tests.mutate.builders import fleet_dict, volcano_job
from tests.webhook.abuse import closed_by_server, gpu_job, read_response, tls_socket
from tests.webhook.conftest import start
from tests.webhook.harness import Client, metric, serving_serial, wait_until
from tests.webhook.pki import Pki
from tests.webhook.reviews import patch_of, response_of, review


def volcano_fleet() -> dict:
    """The webhook tests' fleet plus a Volcano pool, so GANG402 judges the Volcano Jobs below on it
    (capacity rules count only the pools of the system that places the workload)."""
    fleet = fleet_dict()
    fleet["pools"].append(
        {
            "name": "a100",
            "system": "volcano",
            "nodeCount": 4,
            "gpuResource": "nvidia.com/gpu",
            "allocatable": {"nvidia.com/gpu": "8", "cpu": "96", "memory": "1000Gi"},
            "nodeLabels": {"gpufleet.dev/pool": "a100", "volcano.sh/nodegroup-name": "a100"},
        }
    )
    fleet["teams"][0]["pools"].append("a100")
    return fleet


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    running = start(tmp_path_factory.mktemp("abuse"), fleet=volcano_fleet())
    yield running.client
    running.client.close()
    running.server.stop()


@pytest.fixture
def hygiene_server(tmp_path):
    running = start(tmp_path, header_timeout=0.5, body_timeout=0.5, idle_timeout=1.0, max_connections=8)
    yield running
    running.client.close()
    running.server.stop()


def post_exact(client, path, body):
    """POST with the standard library's JSON writer (orjson refuses integers beyond 64 bits)."""
    status, _, data = client.request("POST", path, json.dumps(body).encode())
    return status, orjson.loads(data)


def timed_post(client, path, body):
    started = time.perf_counter()
    status, answer = post_exact(client, path, body)
    return status, answer, time.perf_counter() - started


def answers(client, path="/healthz") -> bool:
    try:
        return client.get(path)[0] == 200
    except (ConnectionError, OSError):
        client.close()
        return False


@pytest.mark.parametrize(
    "gpus",
    ["1e999999", "1e999999999", "9" * 200_000, "0." + "0" * 100_000 + "1Ei", 10**4000],
    ids=["1e999999", "1e999999999", "200k-digits", "tiny-100k-digits", "int-4000-digits"],
)
def test_an_absurd_gpu_quantity_is_a_quick_gang402_denial_not_a_stall_or_a_crash(client, gpus):
    status, answer, seconds = timed_post(client, "/validate", review(gpu_job(gpus)))
    response = response_of(answer)
    assert status == 200 and seconds < 0.5, (status, seconds)
    if isinstance(gpus, str) and gpus.startswith("0."):
        assert "GANG402" not in response.get("status", {}).get("message", "")  # 1n rounded up: fits a node
    else:
        assert response["allowed"] is False and response["status"]["code"] == 403
        assert "GANG402" in response["status"]["message"]


def test_a_saturated_limit_with_a_tiny_float_request_is_no_internal_error(client):
    """Found by the hostile fuzzing: 8 // 2.3e-136 overflowed GANG403's decimal arithmetic."""
    job = gpu_job("1e999999")
    job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["resources"]["requests"] = {
        "nvidia.com/gpu": 2.310979053320025e-136
    }
    response = response_of(post_exact(client, "/validate", review(job))[1])
    assert response.get("status", {}).get("code") != 500, response


def test_an_exponent_beyond_int64_is_not_a_quantity_and_not_an_internal_error(client):
    response = response_of(client.post("/validate", review(gpu_job("1e99999999999999999999")))[1])
    assert response.get("status", {}).get("code") != 500


def test_health_answers_while_a_large_review_is_checked(client):
    job = gpu_job("8")
    job["metadata"]["annotations"] = {f"note-{i}": "x" * 200 for i in range(6000)}  # about 1.3 MB
    body = orjson.dumps(review(job))
    results: list[float] = []

    def probe() -> None:
        probe_client = Client(client.port, client.ca)
        while len(results) < 20:
            started = time.perf_counter()
            assert probe_client.get("/healthz")[0] == 200
            results.append(time.perf_counter() - started)
        probe_client.close()

    thread = threading.Thread(target=probe)
    thread.start()
    for _ in range(3):
        assert client.request("POST", "/validate", body)[0] == 200
    thread.join(20)
    assert len(results) == 20 and max(results) < 0.25, results


def test_integers_beyond_64_bits_stay_exact_integers_in_the_patch(client):
    big = 2**64 + 1
    job = volcano_job(big, 1)
    response = response_of(post_exact(client, "/mutate", review(job))[1])
    patch = json.loads(base64.b64decode(response["patch"]))  # orjson would read the big integer as a float
    min_available = next(op["value"] for op in patch if op["path"] == "/spec/minAvailable")
    assert min_available == big + 1 and isinstance(min_available, int)


def test_a_rule_that_crashes_is_a_500_counted_as_error_and_logged_with_its_traceback(client, monkeypatch, caplog):
    def boom(*args, **kwargs):
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(gang402_pod_exceeds_node, "template_requests", boom)
    before = client.get("/metrics")[1]
    with caplog.at_level(logging.ERROR, logger="gpufleet.webhook"):
        response = response_of(client.post("/validate", review(gpu_job("8")))[1])
    after = client.get("/metrics")[1]
    assert response["allowed"] is False and response["status"]["code"] == 500
    assert "GANG402" in response["status"]["message"] and "gpufleet bug" in response["status"]["message"]
    assert (
        metric(after, "gpufleet_admission_requests_total", endpoint="/validate", result="error")
        == metric(before, "gpufleet_admission_requests_total", endpoint="/validate", result="error") + 1
    )
    assert metric(after, "gpufleet_admission_denials_total", code="GANG402") == metric(
        before, "gpufleet_admission_denials_total", code="GANG402"
    )
    assert any(
        "ZeroDivisionError: simulated bug" in r.getMessage() and "Traceback" in r.getMessage() for r in caplog.records
    )


def test_a_crashing_mutator_answers_allowed_without_a_patch(client, monkeypatch):
    from gpufleet.webhook import handlers

    monkeypatch.setattr(handlers, "mutate", lambda *a: 1 / 0)
    response = response_of(client.post("/mutate", review(volcano_job(2)))[1])
    assert response["allowed"] is True and "patch" not in response and response["warnings"]


def test_slow_headers_are_cut_at_the_header_timeout(hygiene_server):
    sock = tls_socket(hygiene_server.server.port, hygiene_server.pki.ca_path)
    sock.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\n")  # and then nothing
    assert closed_by_server(sock, within=3.0)
    sock.close()


def test_an_idle_connection_is_closed_at_the_idle_timeout(hygiene_server):
    sock = tls_socket(hygiene_server.server.port, hygiene_server.pki.ca_path)
    assert closed_by_server(sock, within=4.0)
    sock.close()


def test_a_slow_body_gets_408_at_the_body_timeout(hygiene_server):
    sock = tls_socket(hygiene_server.server.port, hygiene_server.pki.ca_path)
    sock.sendall(
        b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"a\":"
    )
    answer = read_response(sock, timeout=3.0)
    sock.close()
    assert answer.startswith(b"HTTP/1.1 408") and b"Connection: close" in answer


def test_connections_beyond_the_cap_are_closed_and_counted_while_others_are_served(hygiene_server):
    port, ca = hygiene_server.server.port, hygiene_server.pki.ca_path
    held = [tls_socket(port, ca) for _ in range(8)]  # the cap (the shared client's connection is closed)
    try:
        hygiene_server.client.close()
        extra = tls_socket(port, ca)
        assert closed_by_server(extra, within=2.0)
        extra.close()
    finally:
        for sock in held:
            sock.close()
    assert wait_until(lambda: answers(hygiene_server.client), timeout=5)
    assert metric(hygiene_server.client.get("/metrics")[1], "gpufleet_connections_refused_total") >= 1


def test_a_client_that_aborts_its_upload_is_not_logged_as_an_error(hygiene_server, caplog):
    with caplog.at_level(logging.DEBUG):
        sock = tls_socket(hygiene_server.server.port, hygiene_server.pki.ca_path)
        sock.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n{\"apiVersion\":")
        time.sleep(0.1)
        sock.close()
        time.sleep(0.3)
        assert hygiene_server.client.get("/healthz")[0] == 200
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


def test_an_upload_in_progress_when_shutdown_starts_is_answered_503(tmp_path):
    running = start(tmp_path, body_timeout=30.0)
    sock = tls_socket(running.server.port, running.pki.ca_path)
    sock.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"a\":")
    time.sleep(0.2)
    started = time.monotonic()
    running.client.close()
    running.server.stop()
    answer = read_response(sock, timeout=5.0)
    sock.close()
    assert answer.startswith(b"HTTP/1.1 503") and b"shutting down" in answer
    assert time.monotonic() - started < 3.0  # not the whole shutdown timeout


@pytest.mark.parametrize(
    "bad",
    [
        {},
        {**fleet_dict(), "teams": [{**fleet_dict()["teams"][0], "namespaces": "alpha"}]},
        {**fleet_dict(), "pools": [{**fleet_dict()["pools"][0], "nodeCount": "4"}]},
    ],
)
def test_a_fleet_context_of_the_wrong_shape_is_refused_and_the_previous_one_kept(own_server, caplog, bad):
    with caplog.at_level(logging.WARNING, logger="gpufleet.webhook"):
        own_server.fleet_mount.publish({"fleet-context.json": orjson.dumps(bad)})
        assert wait_until(
            lambda: (
                metric(
                    own_server.client.get("/metrics")[1],
                    "gpufleet_reloads_total",
                    source="fleet-context",
                    result="failed",
                )
                == 1
            )
        )
    assert any(r.levelno == logging.WARNING and "keeping the previous one" in r.getMessage() for r in caplog.records)
    patch = patch_of(response_of(own_server.client.post("/mutate", review(volcano_job(2)))[1]))
    assert {"op": "add", "path": "/spec/queue", "value": "research-vq"} in patch or any(
        op["path"] == "/spec/queue" and op["value"] == "research-vq" for op in patch
    )


def failed_tls(running) -> float:
    return metric(running.client.get("/metrics")[1], "gpufleet_reloads_total", source="tls", result="failed")


def test_an_expired_certificate_does_not_replace_the_valid_one(own_server, caplog):
    port, ca = own_server.server.port, own_server.pki.ca_path
    first = serving_serial(port, ca)
    cert, key, _ = own_server.pki.issue(hours=-1)
    with caplog.at_level(logging.WARNING, logger="gpufleet.webhook"):
        own_server.pki.mount.publish({"tls.crt": cert, "tls.key": key})
        assert wait_until(lambda: failed_tls(own_server) == 1)
    assert serving_serial(port, ca) == first
    assert any(r.levelno == logging.WARNING and "expired" in r.getMessage() for r in caplog.records)


def test_a_certificate_from_another_ca_is_refused_when_the_ca_is_mounted(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "other").mkdir()
    running = start(tmp_path / "a", ca=str(tmp_path / "a" / "ca.crt"))
    try:
        port, ca = running.server.port, running.pki.ca_path
        first = serving_serial(port, ca)
        cert, key, _ = Pki(tmp_path / "other").issue()
        running.pki.mount.publish({"tls.crt": cert, "tls.key": key})
        assert wait_until(lambda: failed_tls(running) == 1)
        assert serving_serial(port, ca) == first
    finally:
        running.client.close()
        running.server.stop()


def test_a_half_swapped_pair_never_serves_a_certificate_without_its_key(own_server):
    port, ca = own_server.server.port, own_server.pki.ca_path
    first = serving_serial(port, ca)
    new_cert, new_key, serial = own_server.pki.issue()
    own_server.pki.mount.publish({"tls.crt": new_cert, "tls.key": own_server.pki.key_path.read_bytes()})
    assert wait_until(lambda: failed_tls(own_server) == 1)
    assert serving_serial(port, ca) == first  # handshakes still work with the old, complete pair
    own_server.pki.mount.publish({"tls.crt": new_cert, "tls.key": new_key})
    assert wait_until(lambda: serving_serial(port, ca) == serial)


@pytest.mark.parametrize(
    "argv, named",
    [
        (["--reload-interval", "0"], "--reload-interval"),
        (["--port", "70000"], "--port"),
        (["--max-connections", "0"], "--max-connections"),
        (["--body-timeout", "nan"], "--body-timeout"),
        (["--port", "eighty"], "--port"),
    ],
)
def test_a_flag_out_of_range_exits_2_with_one_line(capsys, argv, named):
    assert webhook_server.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and named in err and "Traceback" not in err
