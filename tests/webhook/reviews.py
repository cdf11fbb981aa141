"""Builders of AdmissionReview requests and readers of their responses."""

from __future__ import annotations

import base64
import itertools
from typing import Any

import jsonpatch
import orjson

_uids = itertools.count(1)


def review(
    obj: dict[str, Any] | None,
    operation: str = "CREATE",
    namespace: str | None = None,
    dry_run: bool = False,
    old: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """An ``admission.k8s.io/v1`` AdmissionReview as the API server sends it."""
    meta = (obj or old or {}).get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    api_version = str((obj or old or {}).get("apiVersion", "v1"))
    group, _, version = api_version.rpartition("/")
    kind = {"group": group, "version": version, "kind": (obj or old or {}).get("kind", "")}
    request = {
        "uid": f"uid-{next(_uids)}-{'x' * 4}",
        "kind": kind,
        "resource": {**kind, "resource": "things"},
        "requestKind": kind,
        "name": meta.get("name", ""),
        "namespace": namespace or meta.get("namespace"),
        "operation": operation,
        "userInfo": {"username": "alice", "groups": ["system:authenticated"]},
        "object": obj,
        "oldObject": old,
        "dryRun": dry_run,
        "options": None,
    }
    request.update(extra)
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}


def response_of(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["apiVersion"] == "admission.k8s.io/v1" and answer["kind"] == "AdmissionReview"
    return answer["response"]


def patch_of(response: dict[str, Any]) -> list[dict[str, Any]]:
    if "patch" not in response:
        return []
    assert response["patchType"] == "JSONPatch"
    return orjson.loads(base64.b64decode(response["patch"]))


def apply(obj: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    return jsonpatch.apply_patch(obj, patch_of(response))
