"""Hot reload of the mounted serving certificate and fleet context (kubelet-style atomic swaps)."""

from __future__ import annotations

import orjson

from tests.mutate.builders import fleet_dict, volcano_job
from tests.webhook.harness import metric, serving_serial, wait_until
from tests.webhook.reviews import patch_of, response_of, review


def queue_patched(running) -> str | None:
    ops = patch_of(response_of(running.client.post("/mutate", review(volcano_job(2)))[1]))
    return next((op["value"] for op in ops if op["path"] == "/spec/queue"), None)


def failed_reloads(running, source: str) -> float:
    return metric(running.client.get("/metrics")[1], "gpufleet_reloads_total", source=source, result="failed")


def test_a_swapped_certificate_is_served_to_new_handshakes_without_a_restart(own_server):
    port, ca = own_server.server.port, own_server.pki.ca_path
    first = serving_serial(port, ca)
    second = own_server.pki.install(serial=first + 1)
    assert wait_until(lambda: serving_serial(port, ca) == second)
    assert own_server.client.get("/healthz")[0] == 200


def test_a_broken_certificate_swap_keeps_the_previous_certificate(own_server):
    port, ca = own_server.server.port, own_server.pki.ca_path
    first = serving_serial(port, ca)
    cert, _, _ = own_server.pki.issue()
    _, other_key, _ = own_server.pki.issue()
    own_server.pki.mount.publish({"tls.crt": cert, "tls.key": other_key})  # key does not match
    assert wait_until(lambda: failed_reloads(own_server, "tls") == 1)
    assert serving_serial(port, ca) == first


def test_a_changed_fleet_context_is_used_by_the_next_request(own_server):
    assert queue_patched(own_server) == "research-vq"
    own_server.fleet_mount.publish({"fleet-context.json": orjson.dumps(fleet_dict(volcano_queue="gpu-vq"))})
    assert wait_until(lambda: queue_patched(own_server) == "gpu-vq")


def test_an_invalid_fleet_context_is_logged_and_the_previous_one_stays_in_use(own_server, caplog):
    own_server.fleet_mount.publish({"fleet-context.json": b'{"version": 1, "teams": [{"namespaces": 3}]'})
    assert wait_until(lambda: failed_reloads(own_server, "fleet-context") == 1)
    assert queue_patched(own_server) == "research-vq"
    assert own_server.client.get("/readyz")[0] == 200
    assert any(
        "fleet context" in r.getMessage() and "keeping the previous one" in r.getMessage() for r in caplog.records
    )
    own_server.fleet_mount.publish({"fleet-context.json": orjson.dumps(fleet_dict(volcano_queue="fixed-vq"))})
    assert wait_until(lambda: queue_patched(own_server) == "fixed-vq")


def test_a_server_started_without_a_fleet_context_is_unready_until_one_appears(tmp_path):
    from tests.webhook.conftest import start

    running = start(tmp_path, fleet=[])  # a JSON list is not a fleet context
    try:
        status, text = running.client.get("/readyz")
        assert status == 503 and "fleet context" in text
        assert running.client.post("/validate", review(volcano_job(2)))[0] == 503
        running.fleet_mount.publish({"fleet-context.json": orjson.dumps(fleet_dict())})
        assert wait_until(lambda: running.client.get("/readyz")[0] == 200)
    finally:
        running.client.close()
        running.server.stop()
