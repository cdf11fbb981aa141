"""AdmissionReview in and out (``admission.k8s.io/v1``), without sockets.

:func:`parse_review` turns a request body into an :class:`AdmissionRequest` or
raises :class:`BadReview` with a message the API server logs (the HTTP layer
answers 400). Integers beyond 64 bits stay exact integers (see ``_long_digit_run``). :class:`Verdict` is what a handler decides; :func:`render_review`
turns it into the response body: same apiVersion and kind as the request, the
request's ``uid`` echoed, ``status`` on denial, ``warnings``, and a base64
``JSONPatch`` only when there is one. Called by :mod:`gpufleet.webhook.registry`.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any, Mapping

import orjson

API_VERSION = "admission.k8s.io/v1"
KIND = "AdmissionReview"
WARNING_LIMIT = 120  # characters; the API server truncates longer warnings


class BadReview(ValueError):
    """A body that is not a usable AdmissionReview; the message says what is wrong."""


@dataclass(frozen=True)
class AdmissionRequest:
    uid: str
    operation: str
    namespace: str | None
    obj: Mapping[str, Any] | None
    old: Mapping[str, Any] | None
    dry_run: bool
    sub_resource: str | None
    raw: Mapping[str, Any]


@dataclass
class Verdict:
    """A handler's decision; ``result`` labels the request in the metrics."""

    allowed: bool = True
    code: int = 200
    reason: str = ""
    message: str = ""
    warnings: list[str] = field(default_factory=list)
    patch: list[dict[str, Any]] = field(default_factory=list)
    audit: dict[str, str] = field(default_factory=dict)
    denied_codes: tuple[str, ...] = ()

    @property
    def result(self) -> str:
        if not self.allowed:
            return "error" if self.code >= 500 else "denied"
        if self.patch:
            return "patched"
        return "warned" if self.warnings else "allowed"


# orjson reads an integer beyond 64 bits as a float (2^64 + 1 becomes 1.8446744073709552e+19),
# which would change what the rules and the mutator compute. A body with a run of 20 or more
# digits (rare: only such integers, long digit strings or long fractions) is read by the
# standard library instead, which keeps integers exact; beyond MAX_INT_DIGITS digits an
# integer is kept as its text (a string, which the rules treat as a bad value, not a crash).
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_BIG_INT_RUN = b"0" * 20  # 20 digits in a row, once every digit reads 0


def _long_digit_run(body: bytes) -> bool:
    """Whether ``body`` has a run of 20 or more digits (a C translate and a substring search: a regex
    over a 3 KB review cost ~60 µs, as much as the rest of parsing it)."""
    return _BIG_INT_RUN in body.translate(_DIGITS_AS_ZERO)


MAX_INT_DIGITS = 1000


def _int(text: str) -> int | str:
    return int(text) if len(text) <= MAX_INT_DIGITS else text


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _exact(body: bytes) -> Any:
    return json.loads(body, parse_int=_int, parse_constant=_no_constant)


def parse_review(body: bytes) -> AdmissionRequest:
    """Parse and check a request body (raises :class:`BadReview`)."""
    try:
        review = _exact(body) if _long_digit_run(body) else orjson.loads(body)
    except (orjson.JSONDecodeError, ValueError, RecursionError) as exc:
        raise BadReview(f"body is not valid JSON: {str(exc)[:300]}") from None
    if not isinstance(review, dict):
        raise BadReview(f"body must be a JSON object (an AdmissionReview), got {type(review).__name__}")
    if review.get("apiVersion") != API_VERSION or review.get("kind") != KIND:
        raise BadReview(
            f"expected apiVersion {API_VERSION!r} and kind {KIND!r}, got "
            f"{review.get('apiVersion')!r} and {review.get('kind')!r} (configure admissionReviewVersions: [v1])"
        )
    request = review.get("request")
    if not isinstance(request, dict):
        raise BadReview("field 'request' is missing or not an object")
    uid = request.get("uid")
    if not isinstance(uid, str) or not uid:
        raise BadReview("field 'request.uid' is missing or not a non-empty string")
    operation = request.get("operation")
    obj = request.get("object")
    if operation != "DELETE" and not isinstance(obj, dict):
        raise BadReview(f"field 'request.object' must be an object for operation {operation!r}")
    namespace = request.get("namespace")
    sub = request.get("subResource")
    return AdmissionRequest(
        uid=uid,
        operation=str(operation or ""),
        namespace=namespace if isinstance(namespace, str) and namespace else None,
        obj=obj if isinstance(obj, dict) else None,
        old=old if isinstance(old := request.get("oldObject"), dict) else None,
        dry_run=request.get("dryRun") is True,
        sub_resource=sub if isinstance(sub, str) and sub else None,
        raw=request,
    )


def render_review(request: AdmissionRequest, verdict: Verdict) -> bytes:
    response: dict[str, Any] = {"uid": request.uid, "allowed": verdict.allowed}
    if not verdict.allowed:
        response["status"] = {
            "status": "Failure",
            "code": verdict.code,
            "reason": verdict.reason,
            "message": verdict.message,
        }
    if verdict.warnings:
        response["warnings"] = verdict.warnings
    if verdict.patch:
        response["patchType"] = "JSONPatch"
        response["patch"] = base64.b64encode(_dumps(verdict.patch)).decode("ascii")
    if verdict.audit:
        response["auditAnnotations"] = verdict.audit
    return _dumps({"apiVersion": API_VERSION, "kind": KIND, "response": response})


def _dumps(value: Any) -> bytes:
    """orjson, or the standard library for integers beyond 64 bits (which orjson refuses)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def error_body(message: str) -> bytes:
    return orjson.dumps({"error": message})


def short_warning(text: str, limit: int = WARNING_LIMIT) -> str:
    """One warning line, at most ``limit`` characters (ASCII ``...`` when cut)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."
