"""The labels that put a team namespace in scope, guarded: a ValidatingAdmissionPolicy and its binding.

Pure functions, model in, plain dicts out. Called by :func:`gpufleet.render.render_all`
(the objects go into ``Rendered.objects``: the stack applies them through
``gpufleet.pulumi.quota``, ``gpufleet plan`` counts them, the golden files hold them) when
``controller.namespaceGuard.enabled``.

The gang-admission controller's webhooks select this fleet's team namespaces by the
labels the stack puts on them (``gpufleet.render.namespaces``) and skip a namespace
labelled ``<optOutLabel>: disabled``; Kueue's ``managedJobsNamespaceSelector`` selects by
``gpufleet.dev/fleet`` and ``gpufleet.dev/quota-system``. So whoever may label namespaces
could switch gang admission (or Kueue's quota) off for a team namespace. The API server
itself evaluates this policy on every Namespace CREATE and UPDATE (no webhook to keep
alive) and, unless the request comes from an identity the model names
(``request.userInfo``: a user, a group, a service account), refuses:

- on a team namespace of this fleet (``gpufleet.dev/fleet: <fleet>`` and a
  ``gpufleet.dev/team`` label, before the update), any change or removal of the fleet,
  team and quota-system labels, and adding or changing ``<optOutLabel>`` (removing it
  is allowed: that only brings the namespace back into scope);
- creating a team namespace of this fleet that already carries ``<optOutLabel>``.

Anyone may still create a team namespace with the labels the model gives it (the stack's
``pulumi up`` does), and every other namespace is untouched. Status and finalizer
updates (the namespace controller's) never change labels, so they pass.
"""

from __future__ import annotations

from typing import Any

from gpufleet.kubetypes.vocab import FLEET_LABEL, QUOTA_SYSTEM_LABEL, TEAM_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.render.partition import cel_string, deny_policy

SCOPE_LABELS = (FLEET_LABEL, TEAM_LABEL, QUOTA_SYSTEM_LABEL)
"""Labels the stack sets on every team namespace; only named identities may change or remove them."""


def policy_name(fleet: Fleet) -> str:
    return f"gpufleet-{fleet.name}-namespace-labels"


def service_account_user(account: str) -> str:
    """``<namespace>/<name>`` as the API server names the account in ``request.userInfo.username``."""
    namespace, name = account.split("/", 1)
    return f"system:serviceaccount:{namespace}:{name}"


def allowed_users(fleet: Fleet) -> list[str]:
    guard = fleet.controller.namespace_guard
    return [*guard.users, *(service_account_user(a) for a in guard.service_accounts)]


def _has(obj: str, key: str) -> str:
    return f"(has({obj}.metadata.labels) && {cel_string(key)} in {obj}.metadata.labels)"


def _value(obj: str, key: str) -> str:
    return f"{obj}.metadata.labels[{cel_string(key)}]"


def _unchanged(key: str) -> str:
    """CEL: ``key`` is absent from both, or present in both with the same value."""
    new, old = _has("object", key), _has("oldObject", key)
    return f"({new} == {old} && (!{new} || {_value('object', key)} == {_value('oldObject', key)}))"


def team_namespace(fleet: Fleet, obj: str) -> str:
    """CEL: ``obj`` is a team namespace of this fleet."""
    return f"({_has(obj, FLEET_LABEL)} && {_value(obj, FLEET_LABEL)} == {cel_string(fleet.name)} && {_has(obj, TEAM_LABEL)})"


def _list(items: list[str]) -> str:
    return "[" + ", ".join(cel_string(i) for i in items) + "]"


def named_identity(fleet: Fleet) -> str:
    """CEL: the request comes from a user, group or service account the model names."""
    users, groups = allowed_users(fleet), fleet.controller.namespace_guard.groups
    terms = []
    if users:
        terms.append(f"request.userInfo.username in {_list(users)}")
    if groups:
        terms.append(f"(has(request.userInfo.groups) && request.userInfo.groups.exists(g, g in {_list(groups)}))")
    return " || ".join(terms) or "false"


def match_conditions(fleet: Fleet) -> list[dict[str, str]]:
    """The requests the policy judges: on a team namespace of this fleet, by anyone not named."""
    in_scope = (
        f"request.operation == 'UPDATE' ? {team_namespace(fleet, 'oldObject')} : {team_namespace(fleet, 'object')}"
    )
    return [
        {"name": "team-namespace", "expression": in_scope},
        {"name": "not-a-named-identity", "expression": f"!({named_identity(fleet)})"},
    ]


def _identities(fleet: Fleet) -> str:
    guard = fleet.controller.namespace_guard
    named = [
        *(f"user {u}" for u in guard.users),
        *(f"group {g}" for g in guard.groups),
        *(f"service account {a}" for a in guard.service_accounts),
    ]
    return ", ".join(named) or "no one"


def validations(fleet: Fleet) -> list[dict[str, str]]:
    opt_out = fleet.controller.opt_out_label
    who = f"only the identities controller.namespaceGuard names ({_identities(fleet)}) may"
    kept_opt_out = (
        f"!{_has('object', opt_out)} || (request.operation == 'UPDATE' && {_has('oldObject', opt_out)} && "
        f"{_value('object', opt_out)} == {_value('oldObject', opt_out)})"
    )
    out = [
        {
            "expression": kept_opt_out,
            "reason": "Forbidden",
            "message": f"{who} set {opt_out} on a team namespace of fleet {fleet.name}: it takes the namespace out of "
            "the gang-admission webhooks",
        }
    ]
    out += [
        {
            "expression": f"request.operation == 'CREATE' || {_unchanged(key)}",
            "reason": "Forbidden",
            "message": f"{who} change or remove {key} on a team namespace of fleet {fleet.name}: the gang-admission "
            "webhooks and Kueue select team namespaces by it",
        }
        for key in SCOPE_LABELS
    ]
    return out


def render_namespace_guard(fleet: Fleet) -> list[dict[str, Any]]:
    """The ValidatingAdmissionPolicy and its binding; empty when ``controller.namespaceGuard.enabled`` is false."""
    if not fleet.controller.namespace_guard.enabled:
        return []
    name = policy_name(fleet)
    return deny_policy(
        fleet, name, "namespaces", {"matchConditions": match_conditions(fleet), "validations": validations(fleet)}
    )
