"""The static-partitioning ValidatingAdmissionPolicy: its CEL compiles with cel-python and refuses what GANG807 refuses.

The API server evaluates it on every pod (issue 19, item 3); here each expression is
compiled and evaluated by cel-python (``gpufleet.crdschema.cel.ext``, as the CRD CEL checks
are) against pods of the mixed stack: the owner's, another team's, a namespace of no team,
kube-system's, the model's exempt ``gpu-operator``. The verdicts must match GANG807 on
the same pods' tolerations, exempt namespaces included (the exemption is the model's list,
rendered into both; a namespace label alone exempts nothing).
"""

from __future__ import annotations

import json

import pytest

from gpufleet.crdschema.cel.ext import compile_program, to_cel
from gpufleet.fleetctx.context import FleetContext
from gpufleet.model.loader import load_model
from gpufleet.render import render_all
from gpufleet.render.partition import render_partition_policies
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext

MIXED = load_model("stacks/mixed.fleet.yaml")
DEV = load_model("stacks/dev.fleet.yaml")
POLICY, BINDING = render_partition_policies(MIXED)
CTX = CheckContext(fleet=FleetContext.from_dict(json.loads(json.dumps(render_all(MIXED).context))))
ALL, MINE = (
    {"operator": "Exists"},
    {"key": "gpufleet.dev/dedicated", "operator": "Equal", "value": "secure", "effect": "NoExecute"},
)
KEYED = {"key": "gpufleet.dev/dedicated", "operator": "Exists"}
WEAK = {"key": "gpufleet.dev/dedicated", "operator": "Exists", "effect": "NoSchedule"}
GPU = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def namespace(name, labels=None):
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, **({"labels": labels} if labels else {})},
    }


def team_ns(name, team):
    return namespace(name, {"gpufleet.dev/fleet": "mixed", "gpufleet.dev/team": team})


def pod(ns, *tolerations, node_name=None):
    spec = {"containers": [{"name": "c", "image": "x"}], **({"tolerations": list(tolerations)} if tolerations else {})}
    if node_name:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": ns["metadata"]["name"]},
        "spec": spec,
    }


def admitted(obj, ns):
    """What the API server would answer: every validation true."""
    values = {"object": to_cel(obj), "namespaceObject": to_cel(ns)}
    return all(bool(compile_program(v["expression"]).evaluate(values)) for v in POLICY["spec"]["validations"])


CASES = [
    (team_ns("secure", "secure"), (MINE,), True),
    (team_ns("secure", "secure"), (ALL,), True),
    (team_ns("llm", "llm"), (ALL,), False),
    (team_ns("llm", "llm"), (KEYED,), False),
    (team_ns("llm", "llm"), (dict(MINE, value="secure"),), False),
    (team_ns("llm", "llm"), (WEAK,), True),
    (team_ns("llm", "llm"), (GPU,), True),
    (team_ns("llm", "llm"), (), True),
    (namespace("ci-runners"), (ALL,), False),
    (namespace("kube-system"), (ALL,), True),
    (namespace("gpu-operator"), (ALL,), True),
    (namespace("labelled-only", {"gpufleet.dev/partition-exempt": "true"}), (ALL,), False),
    (namespace("rogue", {"gpufleet.dev/team": "secure", "gpufleet.dev/fleet": "other"}), (ALL,), False),
]


def test_the_policy_matches_every_pod_create_and_update_and_is_bound_to_deny():
    rules = POLICY["spec"]["matchConstraints"]["resourceRules"]
    assert rules == [
        {
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "resources": ["pods"],
            "operations": ["CREATE", "UPDATE"],
            "scope": "*",
        }
    ]
    assert POLICY["spec"]["failurePolicy"] == "Fail" and POLICY["spec"]["matchConstraints"]["namespaceSelector"] == {}
    assert BINDING["spec"] == {"policyName": POLICY["metadata"]["name"], "validationActions": ["Deny"]}


@pytest.mark.parametrize("ns, tolerations, expected", CASES)
def test_the_cel_refuses_pods_that_tolerate_the_dedicated_taint_outside_the_owners_namespaces(
    ns, tolerations, expected
):
    assert admitted(pod(ns, *tolerations), ns) is expected


@pytest.mark.parametrize("ns, tolerations, expected", CASES)
def test_gang807_and_the_policy_give_the_same_verdict_on_tolerations(ns, tolerations, expected):
    obj = pod(ns, *tolerations)
    blocking = any(f.blocking for f in engine.check_objects([obj], CTX, select=["GANG807"]))
    assert blocking is (not expected)


def test_a_fleet_without_a_dedicated_pool_renders_no_policy_and_the_mixed_stack_applies_it_with_its_objects():
    assert render_partition_policies(DEV) == []
    kinds = [o.manifest["kind"] for o in render_all(MIXED).objects]
    assert kinds[-2:] == ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]
