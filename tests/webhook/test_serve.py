"""The admission pipeline without sockets: ``serve(registry, state, path, body)``."""

from __future__ import annotations

import copy

import orjson
import pytest

from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from gpufleet.webhook.handlers import build_registry, with_namespace
from gpufleet.webhook.registry import serve
from gpufleet.webhook.review import parse_review
from gpufleet.webhook.state import State
from tests.mutate.builders import OTHER_NS, TEAM_NS, fleet, safe_volcano_job, volcano_job, with_meta
from tests.webhook.harness import metric
from tests.webhook.reviews import apply, patch_of, response_of, review

REGISTRY = build_registry(echo=True)


def ready_state(**kw) -> State:
    state = State(**kw)
    state.use_fleet(fleet())
    state.tls_loaded = True
    return state


def call(path: str, value, state: State | None = None):
    raw = value if isinstance(value, bytes) else orjson.dumps(value)
    reply = serve(REGISTRY, state or ready_state(), path, raw)
    return reply.status, orjson.loads(reply.body), reply.result


def probed_job(**kw) -> dict:
    """A Volcano Job whose worker has a liveness probe (GANG301, an error)."""
    job = safe_volcano_job(1, 3, **kw)
    job["spec"]["tasks"][1]["template"]["spec"]["containers"][0]["livenessProbe"] = {"tcpSocket": {"port": 22}}
    return job


def kueue_config_map(backoff: bool) -> dict:
    """A Kueue manager ConfigMap; without a requeue backoff limit it draws GANG503 (a warning)."""
    strategy = "\n  requeuingStrategy:\n    backoffLimitCount: 5" if backoff else ""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"},
        "data": {
            "controller_manager_config.yaml": "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nwaitForPodsReady:\n"
            f"  timeout: 15m{strategy}\n"
        },
    }


def being_deleted(obj: dict) -> dict:
    obj["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return obj


def test_a_safe_job_is_allowed_without_warnings_and_the_uid_is_echoed():
    request = review(safe_volcano_job(2, 2))
    status, answer, result = call("/validate", request)
    assert status == 200 and result == "allowed"
    assert response_of(answer) == {"uid": request["request"]["uid"], "allowed": True}


def test_a_job_with_a_blocking_finding_is_denied_with_403_naming_code_path_and_fix():
    status, answer, result = call("/validate", review(probed_job()))
    response = response_of(answer)
    assert status == 200 and result == "denied" and response["allowed"] is False
    assert response["status"]["code"] == 403 and response["status"]["reason"] == "Forbidden"
    expected = [f for f in engine.check_object(probed_job(), CheckContext(fleet=fleet())) if f.blocking]
    assert expected, "the probe must draw a blocking finding"
    for finding in expected:
        assert f"{finding.code} {finding.name} at {finding.path}" in response["status"]["message"]
        assert f"Fix: {finding.fix}" in response["status"]["message"]


def test_a_waiver_with_a_reason_allows_and_is_recorded_as_an_audit_annotation_not_a_warning():
    job = with_meta(probed_job(), "annotations", {"waive.gpufleet.dev/GANG301": "sshd probe, reviewed"})
    _, answer, result = call("/validate", review(job))
    response = response_of(answer)
    assert result == "allowed" and response["allowed"] is True and "warnings" not in response
    assert (
        "GANG301" in response["auditAnnotations"]["waived"]
        and "sshd probe, reviewed" in response["auditAnnotations"]["waived"]
    )


def test_a_warning_finding_becomes_a_short_admission_warning_and_the_object_is_allowed():
    _, answer, result = call("/validate", review(kueue_config_map(backoff=False)))
    response = response_of(answer)
    assert result == "warned" and response["allowed"] is True
    assert response["warnings"] and all(len(w) <= 120 for w in response["warnings"])
    assert any(w.startswith("GANG503 ") for w in response["warnings"])
    assert "warnings" not in response_of(call("/validate", review(kueue_config_map(backoff=True)))[1])


def test_a_bare_job_is_patched_on_create_into_a_job_the_engine_finds_nothing_wrong_with():
    job = volcano_job(1, 7)
    _, answer, result = call("/mutate", review(job))
    assert result == "patched"
    fixed = apply(job, response_of(answer))
    assert fixed["spec"]["minAvailable"] == 8 and fixed["spec"]["queue"] == "research-vq"
    assert call("/mutate", review(fixed))[2] == "allowed"
    assert engine.check_object(job, CheckContext(fleet=fleet())), "the bare job must draw findings"
    assert engine.check_object(fixed, CheckContext(fleet=fleet())) == []
    assert call("/validate", review(fixed))[2] == "allowed"


@pytest.mark.parametrize("operation", ["UPDATE", "DELETE", "CONNECT"])
def test_only_create_is_patched(operation):
    job = volcano_job(2)
    _, answer, result = call("/mutate", review(job, operation=operation, old=job))
    assert result == "allowed" and "patch" not in response_of(answer)


def test_dry_run_is_answered_like_any_other_request():
    wet = response_of(call("/mutate", review(volcano_job(2)))[1])
    dry = response_of(call("/mutate", review(volcano_job(2), dry_run=True))[1])
    assert patch_of(dry) == patch_of(wet) != []
    assert response_of(call("/validate", review(probed_job(), dry_run=True))[1])["allowed"] is False


def test_the_request_namespace_is_used_when_the_object_has_none():
    job = volcano_job(2, namespace=None)
    assert patch_of(response_of(call("/mutate", review(job, namespace=TEAM_NS))[1]))
    assert not patch_of(response_of(call("/mutate", review(job, namespace=OTHER_NS))[1]))
    assert with_namespace(job, TEAM_NS)["metadata"]["namespace"] == TEAM_NS and "namespace" not in job["metadata"]


@pytest.mark.parametrize(
    "request_",
    [
        review(None, operation="DELETE", old=volcano_job(2)),
        review(probed_job(), subResource="status"),
        review(being_deleted(probed_job()), operation="UPDATE"),
        review(
            {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"livenessProbe": 1}}
        ),
    ],
    ids=["delete", "status-subresource", "being-deleted", "unknown-kind"],
)
def test_requests_the_rules_do_not_judge_are_allowed_unchanged(request_):
    for path in ("/validate", "/mutate"):
        _, answer, result = call(path, request_)
        assert result == "allowed" and response_of(answer)["allowed"] is True and "patch" not in response_of(answer)


@pytest.mark.parametrize(
    "raw", [b"{", b"[]", b"null", orjson.dumps({"apiVersion": "v1", "kind": "Pod"}), orjson.dumps(review(None))]
)
def test_bad_input_is_a_400_with_a_json_error_on_every_endpoint(raw):
    for path in ("/validate", "/mutate", "/echo"):
        status, answer, result = call(path, raw)
        assert status == 400 and result == "invalid" and answer["error"]


def test_a_body_over_the_limit_is_a_400():
    status, answer, _ = call("/validate", review(volcano_job(2)), ready_state(max_body=200))
    assert status == 400 and "200-byte limit" in answer["error"]


def test_before_the_fleet_context_loads_admission_calls_get_503_so_failure_policy_decides():
    status, answer, result = call("/validate", review(volcano_job(2)), State(fleet_path="/etc/x.json"))
    assert status == 503 and result == "unavailable" and "/etc/x.json" in answer["error"]


def test_an_internal_error_denies_on_validate_and_allows_with_a_warning_on_mutate(monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr("gpufleet.webhook.handlers.engine.check_object", boom)
    monkeypatch.setattr("gpufleet.webhook.handlers.mutate", boom)
    registry = build_registry()
    state = ready_state()
    denied = orjson.loads(serve(registry, state, "/validate", orjson.dumps(review(volcano_job(2)))).body)["response"]
    assert (
        denied["allowed"] is False and denied["status"]["code"] == 500 and "RuntimeError" in denied["status"]["message"]
    )
    allowed = orjson.loads(serve(registry, state, "/mutate", orjson.dumps(review(volcano_job(2)))).body)["response"]
    assert allowed["allowed"] is True and "patch" not in allowed and "RuntimeError" in allowed["warnings"][0]


def test_metrics_count_requests_by_endpoint_and_result_and_denials_by_code():
    state = ready_state()
    call("/validate", review(probed_job()), state)
    call("/validate", review(safe_volcano_job(2)), state)
    call("/mutate", b"{", state)
    text = state.metrics.render().decode()
    for endpoint, result in (("/validate", "denied"), ("/validate", "allowed"), ("/mutate", "invalid")):
        assert metric(text, "gpufleet_admission_requests_total", endpoint=endpoint, result=result) == 1
    assert metric(text, "gpufleet_admission_denials_total", code="GANG301") == 1
    assert metric(text, "gpufleet_admission_duration_seconds_count", endpoint="/validate") == 2
    assert metric(text, "gpufleet_admission_duration_seconds_bucket", endpoint="/validate", le="2.5") == 2


def test_the_input_object_is_never_modified_by_either_handler():
    parsed = parse_review(orjson.dumps(review(probed_job(namespace=None), namespace=TEAM_NS)))
    snapshot = copy.deepcopy(parsed.obj)
    state = ready_state()
    for path in ("/validate", "/mutate"):
        REGISTRY.handlers[path](parsed, state)
    assert parsed.obj == snapshot


def test_an_update_is_denied_only_for_violations_it_introduces():
    old = probed_job()
    changed = copy.deepcopy(old)
    changed["spec"]["tasks"][0]["replicas"] = 1  # e.g. a controller's or user's unrelated edit
    response = response_of(call("/validate", review(changed, operation="UPDATE", old=old))[1])
    assert response["allowed"] is True
    assert any(w.startswith("GANG301 ") and "already there" in w for w in response["warnings"])
    worse = copy.deepcopy(changed)
    worse["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["readinessProbe"] = {"tcpSocket": {"port": 1}}
    response = response_of(call("/validate", review(worse, operation="UPDATE", old=old))[1])
    assert response["allowed"] is False and "spec.tasks[0].template.spec.containers[0]" in response["status"]["message"]
    assert "spec.tasks[1]" not in response["status"]["message"]


def test_an_update_without_an_old_object_is_judged_in_full():
    assert response_of(call("/validate", review(probed_job(), operation="UPDATE"))[1])["allowed"] is False
