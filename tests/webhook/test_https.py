"""The server over real HTTPS on 127.0.0.1, verified against the test CA like the API server does."""

from __future__ import annotations

import ssl

import orjson
import pytest

from tests.mutate.builders import safe_volcano_job, volcano_job
from tests.webhook.harness import Client, metric
from tests.webhook.reviews import apply, response_of, review
from tests.webhook.test_serve import kueue_config_map, probed_job


def test_an_allowed_review_echoes_the_uid_with_the_same_api_version_and_kind(client):
    request = review(safe_volcano_job(2, 2))
    status, answer = client.post("/validate", request)
    assert status == 200
    assert answer["apiVersion"] == "admission.k8s.io/v1" and answer["kind"] == "AdmissionReview"
    assert answer["response"] == {"uid": request["request"]["uid"], "allowed": True}


def test_a_denied_review_names_each_code_path_and_fix(client):
    status, answer = client.post("/validate", review(probed_job()))
    response = response_of(answer)
    assert status == 200 and response["allowed"] is False and response["status"]["code"] == 403
    message = response["status"]["message"]
    assert "GANG301" in message and "spec.tasks[1].template.spec.containers[0]" in message and "Fix:" in message


def test_a_warned_review_is_allowed_with_short_warnings(client):
    response = response_of(client.post("/validate", review(kueue_config_map(backoff=False)))[1])
    assert response["allowed"] is True and response["warnings"] and all(len(w) <= 120 for w in response["warnings"])


def test_a_mutated_review_carries_a_json_patch_that_makes_the_job_safe(client):
    job = volcano_job(1, 15)
    response = response_of(client.post("/mutate", review(job, dry_run=True))[1])
    fixed = apply(job, response)
    assert fixed["spec"]["minAvailable"] == 16 and fixed["spec"]["schedulerName"] == "volcano"
    assert response_of(client.post("/validate", review(fixed))[1])["allowed"] is True


@pytest.mark.parametrize(
    "body",
    [
        b"{",
        b"[]",
        b"42",
        orjson.dumps({"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview", "request": {}}),
        orjson.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}),
        orjson.dumps(review(volcano_job(2), uid=None)),
        orjson.dumps(review(None)),
    ],
    ids=["truncated", "array", "number", "wrong-version", "no-request", "no-uid", "no-object"],
)
def test_each_kind_of_bad_input_gets_400_with_a_json_error(client, body):
    status, headers, data = client.request("POST", "/validate", body)
    assert status == 400 and headers["content-type"].startswith("application/json") and orjson.loads(data)["error"]


def test_a_body_over_3_mib_gets_400_and_the_server_keeps_serving(shared_server):
    big = Client(shared_server.server.port, shared_server.pki.ca_path)
    padding = "x" * (3 * 1024 * 1024)
    status, _, data = big.request("POST", "/validate", orjson.dumps(review(volcano_job(2) | {"pad": padding})))
    big.close()
    assert status == 400 and b"limit" in data
    assert shared_server.client.get("/healthz")[0] == 200


def test_health_readiness_and_metrics_are_served(client):
    client.post("/validate", review(probed_job()))
    assert client.get("/healthz") == (200, "ok\n")
    assert client.get("/readyz") == (200, "ok\n")
    status, text = client.get("/metrics")
    assert status == 200
    assert metric(text, "gpufleet_admission_requests_total", endpoint="/validate", result="denied") >= 1
    assert metric(text, "gpufleet_admission_denials_total", code="GANG301") >= 1
    assert "gpufleet_tls_certificate_not_after_seconds" in text


def test_the_echo_floor_answers_only_when_enabled(client, own_server):
    request = review(volcano_job(2))
    assert response_of(client.post("/echo", request)[1]) == {"uid": request["request"]["uid"], "allowed": True}
    assert own_server.client.request("POST", "/echo", orjson.dumps(request))[0] == 404


def test_plain_http_and_an_untrusted_ca_are_refused(shared_server, tmp_path):
    import http.client

    plain = http.client.HTTPConnection("127.0.0.1", shared_server.server.port, timeout=5)
    with pytest.raises((ConnectionError, http.client.HTTPException, OSError)):
        plain.request("GET", "/healthz")
        plain.getresponse()
    from tests.webhook.pki import Pki

    stranger = Client(shared_server.server.port, Pki(tmp_path).ca_path)
    with pytest.raises(ssl.SSLCertVerificationError):
        stranger.get("/healthz")
