"""AdmissionReview parsing and rendering, without sockets."""

from __future__ import annotations

import base64
import re

import orjson
import pytest

from gpufleet.webhook.review import BadReview, Verdict, _long_digit_run, parse_review, render_review, short_warning
from tests.mutate.builders import volcano_job
from tests.webhook.reviews import review


def body(value) -> bytes:
    return orjson.dumps(value)


def test_a_well_formed_review_is_read_with_its_uid_namespace_and_dry_run():
    request = parse_review(body(review(volcano_job(2), namespace="research", dry_run=True)))
    assert request.uid.startswith("uid-") and request.namespace == "research" and request.dry_run
    assert request.operation == "CREATE" and request.obj["kind"] == "Job"


@pytest.mark.parametrize(
    "raw, fragment",
    [
        (b"{not json", "not valid JSON"),
        (b"", "not valid JSON"),
        (body([1, 2]), "must be a JSON object"),
        (body("review"), "must be a JSON object"),
        (body({**review(volcano_job(2)), "apiVersion": "admission.k8s.io/v1beta1"}), "admission.k8s.io/v1"),
        (body({**review(volcano_job(2)), "kind": "TokenReview"}), "AdmissionReview"),
        (body({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}), "'request'"),
        (body({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": []}), "'request'"),
        (body(review(volcano_job(2), uid="")), "request.uid"),
        (body(review(volcano_job(2), uid=7)), "request.uid"),
        (body(review(None)), "request.object"),
        (
            body(review(volcano_job(2)) | {"request": {"uid": "u", "operation": "CREATE", "object": "text"}}),
            "request.object",
        ),
    ],
)
def test_each_kind_of_bad_input_is_named_in_the_error(raw, fragment):
    with pytest.raises(BadReview) as caught:
        parse_review(raw)
    assert fragment in str(caught.value)


def test_a_delete_needs_no_object():
    assert parse_review(body(review(None, operation="DELETE", old=volcano_job(2)))).obj is None


def test_a_denial_carries_status_and_the_uid_and_no_patch():
    request = parse_review(body(review(volcano_job(2))))
    out = orjson.loads(render_review(request, Verdict(allowed=False, code=403, reason="Forbidden", message="no")))
    assert out["apiVersion"] == "admission.k8s.io/v1" and out["kind"] == "AdmissionReview"
    assert out["response"] == {
        "uid": request.uid,
        "allowed": False,
        "status": {"status": "Failure", "code": 403, "reason": "Forbidden", "message": "no"},
    }


def test_a_patch_is_base64_json_and_present_only_when_not_empty():
    request = parse_review(body(review(volcano_job(2))))
    ops = [{"op": "add", "path": "/spec/queue", "value": "q"}]
    out = orjson.loads(render_review(request, Verdict(patch=ops)))["response"]
    assert out["patchType"] == "JSONPatch" and orjson.loads(base64.b64decode(out["patch"])) == ops
    assert "patch" not in orjson.loads(render_review(request, Verdict()))["response"]


@pytest.mark.parametrize("text", ["short", "x" * 119, "x" * 120, "y" * 121, "word " * 60, "a\nb\tc"])
def test_warnings_are_single_lines_of_at_most_120_characters(text):
    out = short_warning(text)
    assert len(out) <= 120 and "\n" not in out and "\t" not in out
    assert out == " ".join(text.split()) or out.endswith("...")


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"1" * 19,
        b"9" * 20,
        b"x" + b"0123456789" * 2 + b"y",
        b"1" * 19 + b".1",
        b'{"a": 18446744073709551617}',
        b'{"a": 1.8446744073709552e+19}',
        b"12345 67890" * 4,
    ],
)
def test_a_run_of_twenty_digits_is_found_as_the_regex_finds_it(body):
    assert _long_digit_run(body) is (re.search(rb"[0-9]{20}", body) is not None)
