"""The cluster-wide guarantee of static partitioning: a ValidatingAdmissionPolicy and its binding.

Pure functions, model in, plain dicts out. Called by :func:`gpufleet.render.render_all`
(the objects go into ``Rendered.objects``, so the stack applies them and the golden files
hold them) when a pool has ``dedicatedTo``. No webhook to keep alive: the API server itself
evaluates the CEL (``admissionregistration.k8s.io/v1``, Kubernetes 1.30+) on every Pod
CREATE and UPDATE in every namespace, whichever controller made the pod (Deployment,
DaemonSet, StatefulSet, Job, CronJob, a bare Pod, ...).

The guarantee (docs/architecture.md, "Static partitioning: the guarantee"): a dedicated
pool's nodes carry the NoExecute taint ``gpufleet.dev/dedicated=<team>``
(``model.checks.dedicated``); a pod reaches such a node only by tolerating that taint
(the scheduler checks every taint; the kubelet, for a pod with ``spec.nodeName``, checks
NoExecute ones). So the policy refuses a pod that tolerates a dedicated team's NoExecute
taint (its key with that team's value, its key with ``Exists``, or a key-less ``Exists``;
effect NoExecute or unset) unless its namespace carries ``gpufleet.dev/fleet: <fleet>`` and
``gpufleet.dev/team: <that team>`` (labels the stack sets on the team's namespaces), or it
is exempt: ``Fleet.partition_exempt`` (``kube-system`` and the model's
``partitionExemptNamespaces``, for node agents such as the GPU device plugin, which tolerate
every taint). The same list goes into the fleet context, so GANG807 (lint, preview,
admission controller, none of which sees a namespace's labels) exempts exactly the
namespaces this policy exempts; it also reports ``nodeName`` and node selectors.
"""

from __future__ import annotations

from typing import Any

from gpufleet.kubetypes.admission_match import API_VERSION, match_constraints
from gpufleet.kubetypes.vocab import DEDICATED_KEY, FLEET_LABEL, TEAM_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.render.meta import manifest, metadata


def policy_name(fleet: Fleet) -> str:
    return f"gpufleet-{fleet.name}-dedicated-pools"


def dedicated_teams(fleet: Fleet) -> list[str]:
    """The teams that own a dedicated pool, in model order, once each."""
    return list(dict.fromkeys(p.dedicated_to for p in fleet.pools if p.dedicated_to))


def cel_string(text: str) -> str:
    """``text`` as a CEL string literal (also used by :mod:`gpufleet.render.namespace_guard`)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _label_is(key: str, value: str) -> str:
    return (
        f"(has(namespaceObject.metadata.labels) && {cel_string(key)} in namespaceObject.metadata.labels && "
        f"namespaceObject.metadata.labels[{cel_string(key)}] == {cel_string(value)})"
    )


def tolerates(team: str) -> str:
    """CEL: the pod tolerates team ``team``'s NoExecute dedicated-pool taint."""
    key = cel_string(DEDICATED_KEY)
    return (
        "has(object.spec.tolerations) && object.spec.tolerations.exists(t, "
        "(!has(t.effect) || t.effect == '' || t.effect == 'NoExecute') && ("
        "((!has(t.key) || t.key == '') && has(t.operator) && t.operator == 'Exists') || "
        f"(has(t.key) && t.key == {key} && ((has(t.operator) && t.operator == 'Exists') || "
        f"(has(t.value) && t.value == {cel_string(team)})))))"
    )


def allowed(fleet: Fleet, team: str) -> str:
    """CEL: true when the pod may tolerate ``team``'s pool (its team's namespace, exempt, or no such toleration)."""
    exempt = "namespaceObject.metadata.name in [" + ", ".join(cel_string(n) for n in fleet.partition_exempt) + "]"
    owner = f"({_label_is(FLEET_LABEL, fleet.name)} && {_label_is(TEAM_LABEL, team)})"
    return f"{exempt} || {owner} || !({tolerates(team)})"


def render_partition_policies(fleet: Fleet) -> list[dict[str, Any]]:
    """The ValidatingAdmissionPolicy and its binding; empty when no pool is dedicated."""
    teams = dedicated_teams(fleet)
    if not teams:
        return []
    name = policy_name(fleet)
    validations = [
        {
            "expression": allowed(fleet, team),
            "message": f"pods outside team {team}'s namespaces may not tolerate the NoExecute taint {DEDICATED_KEY}={team} "
            f"of its dedicated pool (static partitioning; exempt a node agent's namespace in the model's partitionExemptNamespaces)",
            "reason": "Forbidden",
        }
        for team in teams
    ]
    return deny_policy(fleet, name, "pods", {"validations": validations})


def deny_policy(fleet: Fleet, name: str, resource: str, checks: dict[str, Any]) -> list[dict[str, Any]]:
    """A ValidatingAdmissionPolicy on CREATE and UPDATE of core ``resource`` (failing closed) and its Deny binding.

    ``checks`` follows ``matchConstraints`` in the policy's spec (``matchConditions``, ``validations``).
    Also used by :mod:`gpufleet.render.namespace_guard`.
    """
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "resources": [resource], "operations": ["CREATE", "UPDATE"]}]
    policy = manifest(
        API_VERSION,
        "ValidatingAdmissionPolicy",
        metadata(fleet, name),
        spec={"failurePolicy": "Fail", "matchConstraints": match_constraints(rules), **checks},
    )
    binding = manifest(
        API_VERSION,
        "ValidatingAdmissionPolicyBinding",
        metadata(fleet, name),
        spec={"policyName": name, "validationActions": ["Deny"]},
    )
    return [policy, binding]
