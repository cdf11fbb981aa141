"""The admission controller's defaulting as MutatingAdmissionPolicies and bindings (``admissionregistration.k8s.io/v1``).

Pure: a fleet model in, plain dicts out. Called by :func:`stack_mutating_policies`'s readers (the
Pulumi controller component, ``gpufleet plan`` and ``gpufleet diff``, beside the rules'
ValidatingAdmissionPolicies) and by the e2e tier (``tests/e2e/test_map_e2e.py``, which
compares what the API server makes of an object with what ``/mutate`` returns).

Kubernetes serves ``MutatingAdmissionPolicy`` in ``admissionregistration.k8s.io/v1`` from 1.36
(the ``MutatingAdmissionPolicy`` gate is GA and on by default there; ``pkg/features/kube_features.go``
at v1.37.2; 1.34 and 1.35 have it in ``v1beta1`` behind the gate, off by default): the model check
:mod:`gpufleet.model.checks.mutations` refuses ``controller.mutations`` other than ``webhook``
on an older version, and ``apiServer`` (no mutating webhook) where the fleet needs a defaulting
these policies do not render.

One policy and one binding per concern, named ``gpufleet-mutate-<concern>``, scoped like the
webhook's ``/mutate``: CREATE of the same resources, the same namespace selector (team
namespaces, never the system ones, nor a namespace labelled ``<optOutLabel>: disabled``), the
JobSet-children skip and, for Pods, the Kueue pod-group condition; ``failurePolicy: Fail`` and
``reinvocationPolicy: Never`` as the webhook. The mutations are :mod:`gpufleet.mutate.policy_forms`'.
What a namespace's team has (its LocalQueue, its Volcano queue) reaches CEL from the ConfigMap
:data:`PARAMS` (``localQueue.<namespace>``, ``volcanoQueue.<namespace>``), taken from the fleet
context the webhook reads (:func:`gpufleet.render.context.render_context`): one owner per fact.
"""

from __future__ import annotations

from typing import Any

from gpufleet.fleetctx.context import FleetContext
from gpufleet.kubetypes.admission_kinds import KIND_OF, WORKLOAD_RESOURCES
from gpufleet.kubetypes.admission_match import admission_object, match_constraints, on_pods_only, resource_rule
from gpufleet.model.fleet import Fleet
from gpufleet.mutate import policy_forms as forms
from gpufleet.render.context import render_context
from gpufleet.render.controller.common import meta
from gpufleet.render.controller.webhooks import ONLY_POD_GROUPS, SKIP_JOBSET_CHILDREN, namespace_selector
from gpufleet.render.params_configmap import param_ref, params_config_map
from gpufleet.workloads.kueue_label import KUEUE_KINDS

PARAMS = "gpufleet-mutation-params"
"""The base name of the ConfigMap (controller namespace) holding each team namespace's queues: named
``<PARAMS>-<digest of its data>`` (:func:`gpufleet.render.params_configmap.params_name`)."""
VOLCANO = (("batch.volcano.sh", "jobs"),)
QUEUE_LABEL = tuple(
    (group, plural) for group, _, plural in WORKLOAD_RESOURCES if (group, KIND_OF[plural]) in KUEUE_KINDS
) + (("", "pods"),)
"""The resources whose objects may get the queue label (:data:`gpufleet.workloads.kueue_label.KUEUE_KINDS`, in the
webhooks' order, Pods last)."""
GANG_LABEL = (
    ("batch.volcano.sh", "jobs"),
    ("batch", "jobs"),
    ("jobset.x-k8s.io", "jobsets"),
    ("kubeflow.org", "pytorchjobs"),
    ("kubeflow.org", "mpijobs"),
    ("", "pods"),
)
"""The resources whose templates the policies stamp (a TrainJob has none; LeaderWorkerSets and Ray stay the webhook's)."""
POD_GROUPS_ONLY = on_pods_only(ONLY_POD_GROUPS)


def policy_name(concern: str) -> str:
    return f"gpufleet-mutate-{concern}"


def _team_value(fact: str) -> str:
    key = f"'{fact}.' + request.namespace"
    return f"has(params.data) && {key} in params.data ? params.data[{key}] : ''"


def _resource_rules(wanted: tuple[tuple[str, str], ...]) -> list[dict[str, Any]]:
    known = [*WORKLOAD_RESOURCES, ("", ("v1",), "pods")]
    return [
        resource_rule(group, versions, plural, ["CREATE"])
        for group, versions, plural in known
        if (group, plural) in wanted
    ]


def _policy(
    fleet: Fleet,
    name: str,
    resources: tuple[tuple[str, str], ...],
    variables: list[tuple[str, str]],
    mutations: list[dict[str, Any]],
    params: bool,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "failurePolicy": "Fail",
        "reinvocationPolicy": "Never",
        "matchConstraints": match_constraints(_resource_rules(resources), namespace_selector(fleet)),
        "matchConditions": [dict(SKIP_JOBSET_CHILDREN), dict(POD_GROUPS_ONLY)]
        if ("", "pods") in resources
        else [dict(SKIP_JOBSET_CHILDREN)],
        "variables": [{"name": n, "expression": e} for n, e in variables],
        "mutations": mutations,
    }
    if params:
        spec["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
    return admission_object("MutatingAdmissionPolicy", meta(fleet, name, namespaced=False), spec)


def _binding(fleet: Fleet, name: str, params: dict[str, Any] | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"policyName": name}
    if params is not None:
        spec["paramRef"] = param_ref(params)
    return admission_object("MutatingAdmissionPolicyBinding", meta(fleet, name, namespaced=False), spec)


def _json_patch(expression: str) -> dict[str, Any]:
    return {"patchType": "JSONPatch", "jsonPatch": {"expression": expression}}


def params_data(context: FleetContext) -> dict[str, str]:
    """``{'localQueue.<ns>': queue, 'volcanoQueue.<ns>': queue}`` for every team namespace with that queue."""
    data: dict[str, str] = {}
    for team in context.teams:
        for ns in team.namespaces:
            seen = context.team_for_namespace(ns)
            if seen is None:
                continue
            if seen.local_queue:
                data[f"localQueue.{ns}"] = seen.local_queue
            if seen.volcano_queue:
                data[f"volcanoQueue.{ns}"] = seen.volcano_queue
    return data


def render_mutating_policies(fleet: Fleet) -> dict[str, dict[str, Any]]:
    """The params ConfigMap, then each concern's policy and binding, keyed ``<kind lowercase>-<name>``."""
    context = FleetContext.from_dict(render_context(fleet))
    params = params_config_map(fleet, PARAMS, params_data(context))
    out: dict[str, dict[str, Any]] = {"configmap-mutation-params": params}
    concerns = [
        (
            "volcano",
            VOLCANO,
            [("volcanoQueue", _team_value("volcanoQueue")), *forms.VOLCANO_VARIABLES],
            [_json_patch(e) for e in forms.volcano_mutations()],
            True,
        ),
        (
            "queue-label",
            QUEUE_LABEL,
            [("localQueue", _team_value("localQueue"))],
            [
                {
                    "patchType": "ApplyConfiguration",
                    "applyConfiguration": {"expression": forms.queue_label_mutation(context.queue_label)},
                }
            ],
            True,
        ),
    ]
    if context.gang_label:
        concerns.append(
            (
                "gang-label",
                GANG_LABEL,
                list(forms.GANG_VARIABLES),
                [_json_patch(forms.gang_label_mutation(context.gang_label))],
                False,
            )
        )
    for concern, resources, variables, mutations, reads in concerns:
        name = policy_name(concern)
        out[f"mutatingadmissionpolicy-{name}"] = _policy(fleet, name, resources, list(variables), mutations, reads)
        out[f"mutatingadmissionpolicybinding-{name}"] = _binding(fleet, name, params if reads else None)
    return out


def stack_mutating_policies(fleet: Fleet) -> dict[str, dict[str, Any]]:
    """What the stack applies for ``controller.mutations``: the policies with ``apiServer`` or ``both`` (and an enabled
    controller), none with ``webhook``. Read with the rules' ``stack_policies`` by the Pulumi controller component,
    ``gpufleet plan`` and ``gpufleet diff``, so the three list the same objects."""
    if not fleet.controller.enabled or fleet.controller.mutations == "webhook":
        return {}
    return render_mutating_policies(fleet)
