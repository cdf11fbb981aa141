"""Small builders for the crdschema tests: a self-contained CRD, objects, schema samples.

``kueue_crds()``, ``kueue_object`` and ``local_queue`` serve the tests that judge Kueue
objects against Kueue's real CRDs (here and in tests/diff).
"""

from __future__ import annotations

import copy
from typing import Any

from gpufleet.crdschema import CrdSet
from tests.conftest import shared_path

GROUP = "example.gpufleet.dev"
KUEUE_API = "kueue.x-k8s.io/v1beta2"


def kueue_crds() -> CrdSet:
    """Kueue's real CRDs from ../shared (the test is skipped where ../shared is absent)."""
    return CrdSet.load(shared_path("crds", "kueue"))


def kueue_object(kind: str, name: str, spec: dict[str, Any], namespace: str | None = None) -> dict[str, Any]:
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": KUEUE_API, "kind": kind, "metadata": metadata, "spec": spec}


def local_queue(cluster_queue: str) -> dict[str, Any]:
    """The LocalQueue ``ns/q`` of ``cluster_queue``."""
    return kueue_object("LocalQueue", "q", {"clusterQueue": cluster_queue}, namespace="ns")


def crd(
    schema: dict[str, Any],
    kind: str = "Widget",
    scope: str = "Namespaced",
    served: bool = True,
    version: str = "v1",
    group: str = GROUP,
) -> dict[str, Any]:
    """A CustomResourceDefinition for ``kind`` (of ``group``) with ``schema`` as its openAPIV3Schema."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{kind.lower()}s.{group}"},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": f"{kind.lower()}s"},
            "scope": scope,
            "versions": [{"name": version, "served": served, "storage": True, "schema": {"openAPIV3Schema": schema}}],
        },
    }


def widget_schema() -> dict[str, Any]:
    """A schema covering the Kubernetes dialect: types, int-or-string, lists as maps and sets, CEL, defaults."""
    return {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": {
                "type": "object",
                "required": ["size"],
                "x-kubernetes-validations": [
                    {
                        "rule": "self.size >= self.minSize",
                        "message": "size must be at least minSize",
                        "fieldPath": ".size",
                    },
                ],
                "properties": {
                    "size": {"type": "integer", "format": "int32", "minimum": 0},
                    "minSize": {"type": "integer", "default": 1},
                    "quota": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                    "mode": {"type": "string", "enum": ["Fast", "Safe"]},
                    "startedAt": {"type": "string", "format": "date-time"},
                    "note": {"type": "string", "nullable": True},
                    "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                    "ports": {
                        "type": "array",
                        "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["name", "protocol"],
                        "items": {
                            "type": "object",
                            "required": ["name"],
                            "properties": {
                                "name": {"type": "string"},
                                "protocol": {"type": "string", "default": "TCP"},
                                "port": {"type": "integer"},
                            },
                        },
                    },
                    "settings": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                    "template": {
                        "type": "object",
                        "x-kubernetes-embedded-resource": True,
                        "properties": {"spec": {"type": "object", "properties": {"image": {"type": "string"}}}},
                    },
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                },
            },
        },
    }


def widget(**spec: Any) -> dict[str, Any]:
    """A Widget named ``w`` in namespace ``team-a`` with ``spec`` (size 3 unless given)."""
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "team-a"},
        "spec": {"size": 3, **spec},
    }


def with_metadata(obj: dict[str, Any], **metadata: Any) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out["metadata"] = metadata
    return out


def cluster_queue(**spec: Any) -> dict[str, Any]:
    """A valid Kueue v1beta2 ClusterQueue ``team-a`` (cpu + GPU on flavor h100), with ``spec`` overrides."""
    base = {
        "cohortName": "org",
        "namespaceSelector": {},
        "resourceGroups": [
            {
                "coveredResources": ["cpu", "nvidia.com/gpu"],
                "flavors": [
                    {
                        "name": "h100",
                        "resources": [
                            {"name": "cpu", "nominalQuota": "96"},
                            {"name": "nvidia.com/gpu", "nominalQuota": 16.0, "borrowingLimit": 8},
                        ],
                    }
                ],
            }
        ],
    }
    base.update(spec)
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "team-a"},
        "spec": base,
    }


def topology(*levels: str) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Topology",
        "metadata": {"name": "default"},
        "spec": {"levels": [{"nodeLabel": level} for level in levels]},
    }


def sample(schema: dict[str, Any], full: bool, depth: int = 0) -> Any:
    """A value of ``schema``: every property set (``full``) or only the required ones."""
    if schema.get("x-kubernetes-int-or-string"):
        return 1
    kind = schema.get("type") or ("object" if "properties" in schema else "string")
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        props = schema.get("properties") or {}
        wanted = props if full and depth < 12 else {k: props[k] for k in schema.get("required", []) if k in props}
        out = {name: sample(sub, full, depth + 1) for name, sub in wanted.items()}
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and full and depth < 12:
            out["key"] = sample(extra, full, depth + 1)
        return out
    if kind == "array":
        count = 2 if full and depth < 12 else schema.get("minItems", 0)
        return [sample(schema.get("items") or {}, full, depth + 1) for _ in range(count)]
    return {"integer": max(1, schema.get("minimum", 1)), "number": 1.5, "boolean": True}.get(kind, "a")
