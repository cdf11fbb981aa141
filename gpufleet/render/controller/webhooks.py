"""The Validating and Mutating webhook configurations of the controller.

Fail closed (``failurePolicy: Fail``), 3 s timeout, no side effects, v1 reviews
only, ``matchPolicy: Equivalent``, never reinvoked. The namespaceSelector matches
only this fleet's team namespaces, by the labels the stack puts on them
(``gpufleet.dev/fleet``, ``gpufleet.dev/team``; ``gpufleet.render.namespaces``), and
still skips kube-system, the controller's, Kueue's and Volcano's namespaces and any
namespace labelled ``<optOutLabel>: disabled``. Pods are only sent when they
belong to a Kueue pod group (matchConditions), and batch Jobs owned by a JobSet are
skipped (the JobSet itself is checked). Called by ``gpufleet.render.controller``.
"""

from __future__ import annotations

from typing import Any

from gpufleet.kubetypes.admission_kinds import WORKLOAD_RESOURCES
from gpufleet.kubetypes.admission_match import API_VERSION, resource_rule
from gpufleet.kubetypes.vocab import NAMESPACE_NAME_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.render.controller.common import NAME, ControllerSettings, meta
from gpufleet.render.namespaces import team_selector_expressions

# Mutation fills in defaults at creation only: Volcano and Kueue reject most spec
# changes on UPDATE, so a patch there would turn into their denial.
OPERATIONS = {"validate": ["CREATE", "UPDATE"], "mutate": ["CREATE"]}

# Validation sees UPDATE only where no engine writes the object with a full update,
# so the fail-closed webhook is never in the path of an engine's own writes:
# - batch/v1 Jobs, JobSets, PyTorchJobs, MPIJobs, TrainJobs: Kueue suspends and
#   resumes them (spec.suspend, node selectors of the admitted flavor) by UPDATE;
# - Volcano and scheduler-plugins PodGroups: the Volcano scheduler writes PodGroup
#   status with full updates (the v1beta1 CRD has no status subresource);
# - Pods: Kueue removes its scheduling gate by UPDATE.
# A Volcano Job's controller writes status through the status subresource (the CRD
# has one), which a rule on ``jobs`` never matches, so user edits of vcjobs
# (scaling, minAvailable) are still validated.
UPDATE_VALIDATED = frozenset({("batch.volcano.sh", "jobs")})

SKIP_JOBSET_CHILDREN = {
    "name": "not-a-jobset-child",
    "expression": "!(request.resource.group == 'batch' && has(object.metadata.ownerReferences) && "
    "object.metadata.ownerReferences.exists(r, r.kind == 'JobSet'))",
}
ONLY_POD_GROUPS = {
    "name": "kueue-pod-group-member",
    "expression": "has(object.metadata.labels) && 'kueue.x-k8s.io/pod-group-name' in object.metadata.labels",
}


HOOKS = ("workloads", "pod-groups")
"""The two webhooks of each configuration: workload kinds, and Kueue pod-group Pods."""


def webhook_name(suffix: str, kind: str) -> str:
    return f"{suffix}.{kind}.gpufleet.dev"


def webhook_names() -> tuple[str, ...]:
    """Every webhook's name, as the API server labels its metrics (``name``)."""
    return tuple(webhook_name(suffix, kind) for kind in OPERATIONS for suffix in HOOKS)


def namespace_selector(fleet: Fleet) -> dict[str, Any]:
    """The team namespaces the webhook (and the admission policies, :mod:`gpufleet.rules.admission_policies`) judge."""
    own = {"kube-system", fleet.controller.namespace, fleet.engines.kueue.namespace, fleet.engines.volcano.namespace}
    if fleet.pools_of("coscheduling"):  # the second scheduler's own pods
        own.add(fleet.engines.coscheduling.namespace)
    excluded = sorted(own)
    return {
        "matchExpressions": [
            *team_selector_expressions(fleet),
            {"key": NAMESPACE_NAME_LABEL, "operator": "NotIn", "values": excluded},
            {"key": fleet.controller.opt_out_label, "operator": "NotIn", "values": ["disabled"]},
        ]
    }


def operations(kind: str, group: str, resource: str) -> list[str]:
    """The operations a webhook of ``kind`` (validate, mutate) intercepts for one resource."""
    wanted = OPERATIONS[kind]
    return wanted if (group, resource) in UPDATE_VALIDATED else [op for op in wanted if op != "UPDATE"]


def _rules(resources: tuple[tuple[str, tuple[str, ...], str], ...], kind: str) -> list[dict[str, Any]]:
    return [
        resource_rule(group, versions, resource, operations(kind, group, resource))
        for group, versions, resource in resources
    ]


def _unknown(ca_bundle: Any) -> bool:
    """No CA given (``gpufleet render`` without a key): the field is left out, for whoever makes the Secret to set."""
    return isinstance(ca_bundle, str) and not ca_bundle


def _webhook(
    fleet: Fleet,
    settings: ControllerSettings,
    kind: str,
    suffix: str,
    path: str,
    resources: tuple[Any, ...],
    conditions: list[dict[str, Any]],
) -> dict[str, Any]:
    client: dict[str, Any] = (
        {"url": settings.url.rstrip("/") + path}
        if settings.url
        else {"service": {"name": NAME, "namespace": fleet.controller.namespace, "path": path, "port": 443}}
    )
    if not settings.cert_manager and not _unknown(settings.ca_bundle):
        client["caBundle"] = settings.ca_bundle
    hook: dict[str, Any] = {
        "name": webhook_name(suffix, kind),
        "clientConfig": client,
        "rules": _rules(resources, kind),
        "failurePolicy": "Fail",
        "matchPolicy": "Equivalent",
        "sideEffects": "None",
        "timeoutSeconds": 3,
        "admissionReviewVersions": ["v1"],
        "namespaceSelector": namespace_selector(fleet),
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
        "apiVersion": API_VERSION,
        "kind": api_kind,
        "metadata": metadata,
        "webhooks": [
            _webhook(fleet, settings, kind, HOOKS[0], path, WORKLOAD_RESOURCES, [SKIP_JOBSET_CHILDREN]),
            _webhook(fleet, settings, kind, HOOKS[1], path, (("", ("v1",), "pods"),), [ONLY_POD_GROUPS]),
        ],
    }


def webhook_configurations(fleet: Fleet, settings: ControllerSettings) -> dict[str, dict[str, Any]]:
    """The webhooks the model's choices keep: none where the API server's policies do that work alone
    (``controller.enforcement``/``mutations: apiServer``). Read by the stack and the sandbox alike."""
    out = {}
    if fleet.controller.enforcement != "apiServer":  # else the API server's policies judge; the webhook only mutates
        out["validatingwebhookconfiguration"] = _configuration(fleet, settings, "validate", "/validate")
    if fleet.controller.mutations != "apiServer":  # else the API server's MutatingAdmissionPolicies default
        out["mutatingwebhookconfiguration"] = _configuration(fleet, settings, "mutate", "/mutate")
    return out
