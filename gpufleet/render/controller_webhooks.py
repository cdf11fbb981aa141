"""The Validating and Mutating webhook configurations of the controller.

Fail closed (``failurePolicy: Fail``), 3 s timeout, no side effects, v1 reviews
only, ``matchPolicy: Equivalent``, never reinvoked. The namespaceSelector skips
kube-system, the controller's own namespace, the Kueue and Volcano namespaces and
any namespace labelled ``<optOutLabel>: disabled``. Pods are only sent when they
belong to a Kueue pod group (matchConditions), and batch Jobs owned by a JobSet are
skipped (the JobSet itself is checked). Called by ``gpufleet.render.controller``.
"""

from __future__ import annotations

from typing import Any

from gpufleet.admission_kinds import WORKLOAD_RESOURCES
from gpufleet.model.fleet import Fleet
from gpufleet.render.controller_common import NAME, ControllerSettings, meta


# Mutation fills in defaults at creation only: Volcano and Kueue reject most spec
# changes on UPDATE, so a patch there would turn into their denial. Validation also
# sees UPDATEs (the webhook then denies only violations the update introduces).
OPERATIONS = {"validate": ["CREATE", "UPDATE"], "mutate": ["CREATE"]}

SKIP_JOBSET_CHILDREN = {
    "name": "not-a-jobset-child",
    "expression": "!(request.resource.group == 'batch' && has(object.metadata.ownerReferences) && "
                  "object.metadata.ownerReferences.exists(r, r.kind == 'JobSet'))",
}
ONLY_POD_GROUPS = {
    "name": "kueue-pod-group-member",
    "expression": "has(object.metadata.labels) && 'kueue.x-k8s.io/pod-group-name' in object.metadata.labels",
}


def _namespace_selector(fleet: Fleet) -> dict[str, Any]:
    own = {"kube-system", fleet.controller.namespace, fleet.engines.kueue.namespace, fleet.engines.volcano.namespace}
    if fleet.pools_of("coscheduling"):  # the second scheduler's own pods
        own.add(fleet.engines.coscheduling.namespace)
    excluded = sorted(own)
    return {"matchExpressions": [
        {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": excluded},
        {"key": fleet.controller.opt_out_label, "operator": "NotIn", "values": ["disabled"]},
    ]}


def _rules(resources: tuple[tuple[str, tuple[str, ...], str], ...], operations: list[str]) -> list[dict[str, Any]]:
    return [
        {"apiGroups": [group], "apiVersions": list(versions), "resources": [resource],
         "operations": operations, "scope": "Namespaced"}
        for group, versions, resource in resources
    ]


def _webhook(fleet: Fleet, settings: ControllerSettings, kind: str, suffix: str, path: str,
             resources: tuple, conditions: list[dict[str, Any]]) -> dict[str, Any]:
    client: dict[str, Any] = {"service": {"name": NAME, "namespace": fleet.controller.namespace, "path": path, "port": 443}}
    if not settings.cert_manager:
        client["caBundle"] = settings.ca_bundle
    hook: dict[str, Any] = {
        "name": f"{suffix}.{kind}.gpufleet.dev",
        "clientConfig": client,
        "rules": _rules(resources, OPERATIONS[kind]),
        "failurePolicy": "Fail",
        "matchPolicy": "Equivalent",
        "sideEffects": "None",
        "timeoutSeconds": 3,
        "admissionReviewVersions": ["v1"],
        "namespaceSelector": _namespace_selector(fleet),
        "objectSelector": {},
        "matchConditions": conditions,
    }
    if kind == "mutate":
        hook["reinvocationPolicy"] = "Never"
    return hook


def _configuration(fleet: Fleet, settings: ControllerSettings, kind: str, path: str) -> dict[str, Any]:
    api_kind = "MutatingWebhookConfiguration" if kind == "mutate" else "ValidatingWebhookConfiguration"
    metadata = meta(fleet, NAME, namespaced=False)
    if settings.cert_manager:
        metadata["annotations"] = {"cert-manager.io/inject-ca-from": f"{fleet.controller.namespace}/{NAME}"}
    return {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": api_kind, "metadata": metadata,
        "webhooks": [
            _webhook(fleet, settings, kind, "workloads", path, WORKLOAD_RESOURCES, [SKIP_JOBSET_CHILDREN]),
            _webhook(fleet, settings, kind, "pod-groups", path, (("", ("v1",), "pods"),), [ONLY_POD_GROUPS]),
        ],
    }


def webhook_configurations(fleet: Fleet, settings: ControllerSettings) -> dict[str, dict[str, Any]]:
    return {
        "validatingwebhookconfiguration": _configuration(fleet, settings, "validate", "/validate"),
        "mutatingwebhookconfiguration": _configuration(fleet, settings, "mutate", "/mutate"),
    }
