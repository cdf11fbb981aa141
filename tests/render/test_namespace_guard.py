"""The namespace-label guard: its CEL compiles with cel-python and refuses relabelling to anyone the model does not name.

Each expression (match conditions, then validations) is compiled and evaluated by
cel-python (``gpufleet.crdschema.cel.ext``, as the CRD CEL and the partition policy are)
on Namespace CREATE and UPDATE requests shaped like the API server's: a team namespace
of the dev stack as the stack creates it, relabelled by an ordinary user, by the
cluster-admin group, by a user and a service account the model names.
"""

from __future__ import annotations

import pytest
from celpy import celtypes

from gpufleet.crdschema.cel.ext import compile_program, to_cel
from gpufleet.kubetypes.vocab import FLEET_LABEL, QUOTA_SYSTEM_LABEL, TEAM_LABEL
from gpufleet.model.loader import load_model
from gpufleet.render import render_all
from gpufleet.render.namespace_guard import policy_name, render_namespace_guard
from gpufleet.render.namespaces import render_namespaces

DEV = load_model("stacks/dev.fleet.yaml")
GUARD = DEV.controller.namespace_guard
NAMED = DEV.model_copy(
    update={
        "controller": DEV.controller.model_copy(
            update={
                "namespace_guard": GUARD.model_copy(
                    update={"users": ["ci-deployer"], "service_accounts": ["pulumi-system/pulumi-operator"]}
                )
            }
        )
    }
)
OPT_OUT = DEV.controller.opt_out_label
TEAM_NS = next(n for n in render_namespaces(DEV) if n["metadata"]["name"] == "alpha")  # as the stack creates it
ALICE = {"username": "alice", "groups": ["ops", "system:authenticated"]}
ADMIN = {"username": "kubernetes-admin", "groups": ["system:masters", "system:authenticated"]}
CI = {"username": "ci-deployer", "groups": ["system:authenticated"]}
OPERATOR = {
    "username": "system:serviceaccount:pulumi-system:pulumi-operator",
    "groups": ["system:serviceaccounts", "system:serviceaccounts:pulumi-system", "system:authenticated"],
}


def relabelled(namespace: dict, **changes: str | None) -> dict:
    """``namespace`` with labels set (a value) or removed (None)."""
    labels = dict(namespace["metadata"].get("labels", {}))
    for key, value in changes.items():
        if value is None:
            labels.pop(key, None)
        else:
            labels[key] = value
    return {**namespace, "metadata": {**namespace["metadata"], "labels": labels}}


def admitted(fleet, operation: str, user: dict, new: dict, old: dict | None = None) -> bool:
    """What the API server answers: not matched (any match condition false), or every validation true."""
    policy, _ = render_namespace_guard(fleet)
    request = {"operation": operation, "userInfo": user, "kind": {"group": "", "version": "v1", "kind": "Namespace"}}
    values = {"object": to_cel(new), "oldObject": to_cel(old), "request": to_cel(request)}

    def verdict(expression: str) -> bool:
        result = compile_program(expression).evaluate(values)
        assert isinstance(result, celtypes.BoolType), (
            f"{expression} evaluated to {result!r}"
        )  # an error fails the request
        return bool(result)

    if not all(verdict(c["expression"]) for c in policy["spec"]["matchConditions"]):
        return True
    return all(verdict(v["expression"]) for v in policy["spec"]["validations"])


def update(fleet, user: dict, **changes: str | None) -> bool:
    return admitted(fleet, "UPDATE", user, relabelled(TEAM_NS, **changes), TEAM_NS)


OPT_OUT_CHANGES = [{OPT_OUT: "disabled"}, {OPT_OUT: "enabled"}]
SCOPE_CHANGES = [
    {TEAM_LABEL: None},
    {TEAM_LABEL: "beta"},
    {FLEET_LABEL: None},
    {FLEET_LABEL: "prod"},
    {QUOTA_SYSTEM_LABEL: None},
    {QUOTA_SYSTEM_LABEL: "volcano"},
]


@pytest.mark.parametrize("changes", OPT_OUT_CHANGES + SCOPE_CHANGES, ids=str)
def test_an_ordinary_user_may_not_take_a_team_namespace_out_of_scope(changes):
    assert update(DEV, ALICE, **changes) is False


@pytest.mark.parametrize("changes", OPT_OUT_CHANGES + SCOPE_CHANGES, ids=str)
@pytest.mark.parametrize(
    "fleet, user", [(DEV, ADMIN), (NAMED, CI), (NAMED, OPERATOR)], ids=["masters", "named-user", "named-sa"]
)
def test_the_identities_the_model_names_may(changes, fleet, user):
    assert update(fleet, user, **changes) is True


@pytest.mark.parametrize("user", [CI, OPERATOR], ids=["user", "sa"])
def test_a_user_or_service_account_is_refused_until_the_model_names_it(user):
    assert update(DEV, user, **{TEAM_LABEL: None}) is False


@pytest.mark.parametrize("changes", [{"owner": "someone"}, {}, {"kubernetes.io/metadata.name": "alpha"}], ids=str)
def test_other_labels_and_status_updates_are_anyones(changes):
    assert update(DEV, ALICE, **changes) is True


def test_removing_the_opt_out_label_brings_a_namespace_back_and_is_anyones():
    opted_out = relabelled(TEAM_NS, **{OPT_OUT: "disabled"})
    assert admitted(DEV, "UPDATE", ALICE, TEAM_NS, opted_out) is True
    assert admitted(DEV, "UPDATE", ALICE, opted_out, opted_out) is True  # unchanged (e.g. a status update)


@pytest.mark.parametrize(
    "new, expected",
    [
        (TEAM_NS, True),  # as the stack creates it: by anyone
        (relabelled(TEAM_NS, **{OPT_OUT: "disabled"}), False),  # born out of scope
        ({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "scratch"}}, True),
        (
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": "gpufleet-system", "labels": {OPT_OUT: "disabled"}},
            },
            True,
        ),
    ],
    ids=["team", "team-opted-out", "plain", "controller-namespace"],
)
def test_creating_namespaces(new, expected):
    assert admitted(DEV, "CREATE", ALICE, new) is expected


def test_namespaces_of_another_fleet_and_plain_namespaces_are_not_judged():
    other = relabelled(TEAM_NS, **{FLEET_LABEL: "prod"})
    assert admitted(DEV, "UPDATE", ALICE, relabelled(other, **{OPT_OUT: "disabled"}), other) is True
    plain = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "scratch", "labels": {"a": "b"}}}
    assert admitted(DEV, "UPDATE", ALICE, relabelled(plain, **{TEAM_LABEL: "alpha"}), plain) is True


def test_a_request_without_groups_is_judged_by_its_user_name():
    assert update(NAMED, {"username": "ci-deployer"}, **{TEAM_LABEL: None}) is True
    assert update(NAMED, {"username": "alice"}, **{TEAM_LABEL: None}) is False


def test_the_policy_is_bound_to_deny_namespace_creates_and_updates_and_fails_closed():
    policy, binding = render_namespace_guard(DEV)
    assert policy["spec"]["matchConstraints"]["resourceRules"] == [
        {
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "resources": ["namespaces"],
            "operations": ["CREATE", "UPDATE"],
            "scope": "*",
        }
    ]
    assert policy["spec"]["matchConstraints"]["namespaceSelector"] == {}  # every namespace
    assert policy["spec"]["failurePolicy"] == "Fail"
    assert binding["spec"] == {"policyName": policy_name(DEV), "validationActions": ["Deny"]}


@pytest.mark.parametrize("enabled", [True, False])
def test_the_stack_applies_the_guard_unless_the_model_disables_it(enabled):
    fleet = DEV.model_copy(
        update={
            "controller": DEV.controller.model_copy(
                update={"namespace_guard": GUARD.model_copy(update={"enabled": enabled})}
            )
        }
    )
    keys = {o.key for o in render_all(fleet).objects}
    assert (f"validatingadmissionpolicy-{policy_name(DEV)}" in keys) is enabled
    assert (f"validatingadmissionpolicybinding-{policy_name(DEV)}" in keys) is enabled
