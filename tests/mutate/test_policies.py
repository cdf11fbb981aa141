"""The defaulting's MutatingAdmissionPolicies: rendered behind ``controller.mutations``, scoped like ``/mutate``,
their variables computing what the mutator computes (cel-python; the mutations themselves, JSON Patch and
``transformList``, run on the real API server in tests/e2e/test_map_e2e.py)."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from celpy import celtypes
from celpy.celparser import CELParser

from gpufleet.crdschema.cel.ext import SHIMS, to_cel
from gpufleet.crdschema.cel.run import Program
from gpufleet.fleetctx.context import FleetContext
from gpufleet.mutate import mutate, policy_forms
from gpufleet.mutate.policies import PARAMS, render_mutating_policies, stack_mutating_policies
from gpufleet.render.context import render_context
from gpufleet.render.controller import ControllerSettings, render_controller
from gpufleet.render.controller.webhooks import namespace_selector, webhook_configurations
from gpufleet.render.params_configmap import params_name
from gpufleet.workloads import build_view
from gpufleet.workloads.identity import gang_identity
from gpufleet.workloads.stages import initializer_roles, starting_replicas
from tests.render.builders import fleet, pool, quota, team
from tests.rules import fixtures as fx

MODEL = fleet(
    pools=[pool("h100"), pool("a100", system="volcano")],
    teams=[
        team(
            "research",
            {"h100": quota(8), "a100": quota(8)},
            namespaces=["research", "research-vc"],
            volcanoNamespaces=["research-vc"],
        )
    ],
)
RENDERED = render_mutating_policies(MODEL)
POLICIES = [m for m in RENDERED.values() if m["kind"] == "MutatingAdmissionPolicy"]
CONTEXT = FleetContext.from_dict(render_context(MODEL))


def with_mutations(where: str, **controller: Any):
    return fleet(controller={"mutations": where, **controller})


def test_the_stack_applies_the_policies_only_where_the_model_moves_the_defaulting_to_the_api_server():
    assert stack_mutating_policies(fleet()) == {}
    assert stack_mutating_policies(with_mutations("both", enabled=False)) == {}
    assert {m["kind"] for m in stack_mutating_policies(with_mutations("apiServer")).values()} == {
        "ConfigMap",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    }


@pytest.mark.parametrize("where, hooks", [("webhook", 2), ("both", 2), ("apiServer", 1)])
def test_api_server_mutations_drop_the_mutating_webhook_and_both_keep_it(where, hooks):
    rendered = render_controller(with_mutations(where), ControllerSettings())
    assert sum(k.endswith("webhookconfiguration") for k in rendered) == hooks
    assert ("mutatingwebhookconfiguration" in rendered) == (where != "apiServer")


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p["metadata"]["name"])
def test_every_policy_is_scoped_like_the_mutating_webhook(policy):
    hook = webhook_configurations(MODEL, ControllerSettings())["mutatingwebhookconfiguration"]["webhooks"]
    sent = {(r["apiGroups"][0], r["resources"][0], v) for h in hook for r in h["rules"] for v in r["apiVersions"]}
    spec = policy["spec"]
    rules = spec["matchConstraints"]["resourceRules"]
    assert {(r["apiGroups"][0], r["resources"][0], v) for r in rules for v in r["apiVersions"]} <= sent
    assert all(r["operations"] == ["CREATE"] for r in rules)
    assert spec["matchConstraints"]["namespaceSelector"] == namespace_selector(MODEL)
    assert (spec["failurePolicy"], spec["reinvocationPolicy"]) == ("Fail", "Never")
    conditions = {c["name"] for c in spec["matchConditions"]}
    assert "not-a-jobset-child" in conditions
    assert ("kueue-pod-group-member" in conditions) == any(r["resources"] == ["pods"] for r in rules)
    binding = RENDERED[f"mutatingadmissionpolicybinding-{policy['metadata']['name']}"]
    assert binding["spec"]["policyName"] == policy["metadata"]["name"]
    assert ("paramRef" in binding["spec"]) == ("paramKind" in spec)


def test_each_namespace_reads_its_own_teams_queue_from_the_params():
    params = RENDERED["configmap-mutation-params"]
    assert (params["metadata"]["name"], params["metadata"]["namespace"]) == (
        params_name(PARAMS, params["data"]),
        MODEL.controller.namespace,
    )
    reading = [m for m in RENDERED.values() if "paramRef" in m.get("spec", {})]
    assert reading and all(m["spec"]["paramRef"]["name"] == params["metadata"]["name"] for m in reading)
    assert params["data"] == {
        "localQueue.research": CONTEXT.team_for_namespace("research").local_queue,
        "volcanoQueue.research-vc": CONTEXT.team_for_namespace("research-vc").volcano_queue,
    }


def test_the_gang_label_is_stamped_only_where_observability_names_it():
    assert "mutatingadmissionpolicy-gpufleet-mutate-gang-label" in RENDERED
    quiet = render_mutating_policies(fleet(observability={"enabled": False}))
    assert "mutatingadmissionpolicy-gpufleet-mutate-gang-label" not in quiet


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p["metadata"]["name"])
def test_every_expression_is_cel(policy):
    spec = policy["spec"]
    texts = [v["expression"] for v in spec["variables"]] + [c["expression"] for c in spec["matchConditions"]]
    texts += [(m.get("jsonPatch") or m.get("applyConfiguration"))["expression"] for m in spec["mutations"]]
    for text in texts:
        CELParser().parse(text)


# --- the variables, evaluated with cel-python against the mutator's own helpers ----------------------------


def _flatten(items: Any) -> Any:
    return celtypes.ListType([x for inner in items for x in inner])


@functools.cache
def program(text: str) -> Program:
    return Program(CELParser().parse(text), {**SHIMS, "flatten": _flatten})


def variables(pairs, obj: dict, resource: tuple[str, str]) -> dict[str, Any]:
    """Each variable's value, in order, as the API server binds them (``request.resource`` from ``resource``)."""
    names: dict[str, Any] = {
        "object": to_cel(obj),
        "request": to_cel({"namespace": "research-vc", "resource": {"group": resource[0], "resource": resource[1]}}),
    }
    done: dict[str, Any] = {}
    for name, text in pairs:
        names["variables"] = celtypes.MapType({celtypes.StringType(k): v for k, v in done.items()})
        done[name] = program(text).evaluate(names)
    return done


def objects(group: str, kind: str) -> list[dict]:
    found = []
    for folder in sorted(fx.FIXTURES.iterdir()):
        for name in ("allowed.yaml", "disallowed.yaml"):
            if (folder / name).exists():
                found += [
                    d
                    for d in fx.documents(folder.name, name)
                    if d.get("kind") == kind and str(d.get("apiVersion", "")).rpartition("/")[0] == group
                ]
    return found


VOLCANO_JOBS = [
    j for j in objects("batch.volcano.sh", "Job") if starting_replicas((j.get("spec") or {}).get("tasks")) is not None
]
GANGS = [
    (o, res)
    for group, kind, res in (
        ("batch.volcano.sh", "Job", "jobs"),
        ("batch", "Job", "jobs"),
        ("jobset.x-k8s.io", "JobSet", "jobsets"),
        ("kubeflow.org", "PyTorchJob", "pytorchjobs"),
    )
    for o in objects(group, kind)
]


@pytest.mark.parametrize("job", VOLCANO_JOBS, ids=lambda j: j["metadata"].get("name"))
def test_the_volcano_variables_count_the_gang_and_the_uncovered_events_as_the_mutator(job):
    got = variables([("volcanoQueue", "''"), *policy_forms.VOLCANO_VARIABLES], job, ("batch.volcano.sh", "jobs"))
    appended = [op["value"] for op in mutate(job, CONTEXT, "research-vc") if op["path"].startswith("/spec/policies")]
    events = [p["event"] for v in appended for p in (v if isinstance(v, list) else [v])]
    assert int(got["starting"]) == starting_replicas(job["spec"].get("tasks"))
    assert [str(e) for e in got["restartEvents"]] == events


@pytest.mark.parametrize("obj, resource", GANGS, ids=lambda o: o["metadata"].get("name") if isinstance(o, dict) else o)
def test_the_gang_variables_name_the_gang_as_the_identity_module(obj, resource):
    group = str(obj["apiVersion"]).rpartition("/")[0]
    got = variables(policy_forms.GANG_VARIABLES, obj, (group, resource))
    view = build_view(obj)
    assert (str(got["identity"]) or None) == gang_identity(view)
    assert bool(got["gang"]) == view.is_gang
    assert {str(n) for n in got["initializers"]} == set(initializer_roles(view))
