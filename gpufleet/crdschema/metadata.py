"""The ``metadata`` checks the API server applies to every custom resource.

Called by :mod:`gpufleet.crdschema.crdset`. The CRD schema says only
``metadata: {type: object}``; the server itself requires ``name`` (or
``generateName``) to be a DNS subdomain (at most 253 characters), a ``namespace``
only on namespaced kinds (a DNS label), and well-formed label keys and values and
annotation keys.
"""

from __future__ import annotations

from typing import Any

from gpufleet.kubetypes.fieldpath import ROOT, FieldPath
from gpufleet.kubetypes.vocab import is_dns_label, is_dns_subdomain, is_label_value, is_qualified_name
from gpufleet.yamlin.errors import Issue

_META = ROOT.child("metadata")
_SUBDOMAIN_HINT = (
    "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters"
)


def check(obj: dict[str, Any], kind: str, namespaced: bool) -> list[Issue]:
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        problem = "metadata is missing" if meta is None else "metadata must be an object"
        return [Issue(_META, problem, "give metadata.name")]
    issues = _name_issues(meta)
    namespace = meta.get("namespace")
    if namespace not in (None, "") and not namespaced:
        issues.append(
            Issue(
                _META.child("namespace"),
                f"{kind} is cluster-scoped; a namespace is not allowed",
                "remove metadata.namespace",
            )
        )
    elif isinstance(namespace, str) and namespace and not is_dns_label(namespace):
        issues.append(
            Issue(
                _META.child("namespace"),
                f"{namespace!r} is not a valid namespace (a DNS label)",
                "use lowercase letters, digits and '-', at most 63 characters",
            )
        )
    issues += _map_issues(meta.get("labels"), _META.child("labels"), check_values=True)
    issues += _map_issues(meta.get("annotations"), _META.child("annotations"), check_values=False)
    return issues


def _name_issues(meta: dict[str, Any]) -> list[Issue]:
    name, generate = meta.get("name"), meta.get("generateName")
    if not name and not generate:
        return [Issue(_META.child("name"), "name or generateName is required", "set metadata.name")]
    if name and not (isinstance(name, str) and is_dns_subdomain(name)):
        return [Issue(_META.child("name"), f"{name!r} is not a valid name (a DNS subdomain)", f"use {_SUBDOMAIN_HINT}")]
    if not name and not (isinstance(generate, str) and is_dns_subdomain(generate.rstrip("-") or "x")):
        return [
            Issue(_META.child("generateName"), f"{generate!r} is not a valid name prefix", f"use {_SUBDOMAIN_HINT}")
        ]
    return []


def _map_issues(values: Any, path: FieldPath, check_values: bool) -> list[Issue]:
    if not isinstance(values, dict):
        return []
    issues = []
    for key, value in values.items():
        where = path.key(str(key))
        if not is_qualified_name(str(key)):
            issues.append(
                Issue(
                    where,
                    f"{key!r} is not a valid key",
                    "use [prefix/]name: name at most 63 characters of "
                    "letters, digits, '-', '_' and '.'; prefix a DNS subdomain",
                )
            )
        elif check_values and not is_label_value(value):
            issues.append(
                Issue(
                    where,
                    f"{value!r} is not a valid label value",
                    "use at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit",
                )
            )
    return issues
