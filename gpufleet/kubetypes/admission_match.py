"""An admission policy's ``matchConstraints`` spelled with every field the API server defaults.

``MatchResources`` is an atomic struct for server-side apply: one field manager owns it whole,
and the live value carries the API server's defaults (``SetDefaults_MatchResources`` and
``SetDefaults_Rule`` in k8s.io/kubernetes pkg/apis/admissionregistration/v1/defaults.go:
``matchPolicy: Equivalent``, empty ``namespaceSelector`` and ``objectSelector``, a rule's
``scope: "*"``). An applied value without them differs from the live one, so a second field
manager applying the very same object is refused with a conflict on ``.spec.matchConstraints``:
what a ``pulumi up`` run after a killed one does to the policies the killed run created (seen on
the real API server: tests/e2e/test_takeover_e2e.py). Spelled complete, the second apply
co-owns the field. Called by the renderers of every ValidatingAdmissionPolicy and
MutatingAdmissionPolicy (rules, mutate, render.partition, render.namespace_guard); the rules' and
mutate's renderers also spell their policies and bindings with :func:`admission_object`, each resource rule with
:func:`resource_rule` and the Pods-only condition with :func:`on_pods_only`.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

MATCH_DEFAULTS: Mapping[str, Any] = {"matchPolicy": "Equivalent", "namespaceSelector": {}, "objectSelector": {}}
RULE_DEFAULTS: Mapping[str, Any] = {"scope": "*"}


def match_constraints(
    resource_rules: Iterable[Mapping[str, Any]], namespace_selector: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``matchConstraints`` for ``resource_rules`` (and a namespace selector), with the API server's defaults."""
    out: dict[str, Any] = {
        "resourceRules": [{**RULE_DEFAULTS, **rule} for rule in resource_rules],
        **{key: dict(value) if isinstance(value, Mapping) else value for key, value in MATCH_DEFAULTS.items()},
    }
    if namespace_selector is not None:
        out["namespaceSelector"] = dict(namespace_selector)
    return out


API_VERSION = "admissionregistration.k8s.io/v1"


def admission_object(kind: str, metadata: Mapping[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """An ``admissionregistration.k8s.io/v1`` object of ``kind`` (a policy or its binding)."""
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


def resource_rule(group: str, versions: Iterable[str], plural: str, operations: list[str]) -> dict[str, Any]:
    """A ``resourceRules`` entry: ``operations`` on the namespaced resource ``plural`` of ``group``."""
    return {
        "apiGroups": [group],
        "apiVersions": list(versions),
        "resources": [plural],
        "operations": operations,
        "scope": "Namespaced",
    }


def on_pods_only(condition: Mapping[str, str]) -> dict[str, str]:
    """The match condition ``condition`` held on Pods only (true for any other resource of the policy)."""
    return {
        "name": condition["name"],
        "expression": f"request.resource.resource != 'pods' || ({condition['expression']})",
    }
