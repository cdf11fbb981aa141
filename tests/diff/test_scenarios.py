"""Scenarios: a prod model edit, the steps `pulumi up` would take, and each step's verdict.

Every scenario starts from ``stacks/prod.fleet.yaml`` (Kueue H100 pool with topology,
Volcano A100 pool under the hierarchical ``capacity`` plugin, one cohort ``ml``).
The CRDs of ../shared are used when present (schema, CEL and transition rules).
"""

from __future__ import annotations

import copy
import re
from typing import Any, Callable

import pytest
import yaml

from gpufleet.crdschema import CrdSet
from gpufleet.diff import diff_fleets, stack_objects
from gpufleet.diff.judge import NEW_POOL_FIX, RETIRE_FIX, ref
from gpufleet.diff.markdown import pool_change
from gpufleet.diff.steps import plan_steps
from gpufleet.model.loader import parse_model
from tests.conftest import REPO, shared_or_none

pytestmark = pytest.mark.shared  # the CRDs of ../shared when present: runs both ways

PROD = yaml.safe_load((REPO / "stacks" / "prod.fleet.yaml").read_text())
_CRDS: list[CrdSet | None] = []


def crds() -> CrdSet | None:
    if not _CRDS:
        found = shared_or_none("crds")
        _CRDS.append(CrdSet.load(found) if found is not None else None)
    return _CRDS[0]


def model(*edits: Callable[[dict], Any]):
    data = copy.deepcopy(PROD)
    for edit in edits:
        edit(data)
    return parse_model(data, "prod.fleet.yaml")


def team(data: dict, name: str) -> dict:
    return next(t for t in data["teams"] if t["name"] == name)


def pool(data: dict, name: str) -> dict:
    return next(p for p in data["pools"] if p["name"] == name)


def a100(name: str, nominal: int) -> Callable[[dict], None]:
    return lambda d: team(d, name)["quota"]["a100"].__setitem__("nominal", nominal)


def lifecycle(name: str, value: str) -> Callable[[dict], None]:
    return lambda d: team(d, name).__setitem__("lifecycle", value)


def remove(name: str) -> Callable[[dict], None]:
    return lambda d: d["teams"].remove(team(d, name))


def more_a100_nodes(d: dict) -> None:
    pool(d, "a100")["nodeCount"] = 160


def add_vision(d: dict) -> None:
    d["cohorts"][0]["quota"]["h100"]["nominal"] = 272
    d["teams"].append(
        {
            "name": "vision",
            "namespaces": ["vision"],
            "cohort": "ml",
            "quota": {"h100": {"nominal": 512, "borrowingLimit": 256}},
        }
    )


def plain(name: str | None, digits: int = 8) -> str:
    return re.sub(rf"-[0-9a-f]{{{digits}}}$", "-<digest>", name or "")


def shape(diff) -> list[tuple[str, str, str]]:
    return [
        (
            s["op"],
            s["kind"],
            plain(s["name"])
            if s["kind"] == "Queue"
            else f"{s['namespace'] + '/' if s['namespace'] else ''}{plain(s['name'], 10)}",
        )
        for s in diff.steps
    ]


# The gang-admission controller's fleet context follows the model: the Kubernetes provider replaces a ConfigMap whose data changes
CONTEXT = [
    ("delete", "ConfigMap", "gpufleet-system/gang-admission-controller-fleet-context"),
    ("replace", "ConfigMap", "gpufleet-system/gang-admission-controller-fleet-context"),
]
# The rules' params follow the fleet's facts (teams' namespaces, pool totals) too, but are named by their content: the
# provider creates the new ConfigMap first (another name), every binding reading params is switched to it, and the
# old one goes with the deletes at the end (PARAMS_OLD), so a binding never finds its params missing (docs/webhook.md).
READING = [
    o.manifest["metadata"]["name"]
    for o in stack_objects(model())
    if o.manifest["kind"] == "ValidatingAdmissionPolicyBinding" and "paramRef" in o.manifest["spec"]
]
PARAMS = [
    ("replace", "ConfigMap", "gpufleet-system/gpufleet-rule-params-<digest>"),
    *(("update", "ValidatingAdmissionPolicyBinding", name) for name in READING),
]
PARAMS_OLD = [("delete", "ConfigMap", "gpufleet-system/gpufleet-rule-params-<digest>")]
# The steps of every edit that changes the fleet's facts: the controller's context, then the rule params.
FLEET_FACTS = [*CONTEXT, *PARAMS, *PARAMS_OLD]
MOVE_PARENT = [
    ("create", "Queue", "ml-<digest>"),
    ("update", "Queue", "research"),
    ("update", "Queue", "eval"),
    ("update", "Queue", "platform-ci"),
    *CONTEXT,  # the controller's context carries each team's quota ceiling, so a quota change reaches it
    ("delete", "Queue", "ml-<digest>"),
]

SCENARIOS = {
    "grow a team (after growing its pool)": ((more_a100_nodes,), (more_a100_nodes, a100("research", 640)), MOVE_PARENT),
    "shrink a team": ((), (a100("research", 256),), MOVE_PARENT),
    "move quota between siblings": ((), (a100("research", 256), a100("eval", 384)), MOVE_PARENT),
    "add a team": (
        (),
        (add_vision,),
        [
            ("create", "Namespace", "vision"),
            ("update", "Cohort", "ml"),
            ("create", "ClusterQueue", "vision"),
            ("create", "LocalQueue", "vision/vision"),
            *FLEET_FACTS,
        ],
    ),
    "drain a team": (
        (),
        (lifecycle("eval", "draining"),),
        [("update", "ClusterQueue", "eval"), ("update", "LocalQueue", "eval/eval")],
    ),
    "retire a drained team": (
        (lifecycle("eval", "draining"),),
        (lifecycle("eval", "retired"),),
        [
            ("unprotect", "Namespace", "eval"),
            ("unprotect", "Namespace", "eval-vc"),
            ("unprotect", "ClusterQueue", "eval"),
            ("unprotect", "LocalQueue", "eval/eval"),
            ("unprotect", "Queue", "eval"),
        ],
    ),
    "remove a retired team": (
        (lifecycle("eval", "retired"),),
        (remove("eval"),),
        [
            ("create", "Queue", "ml-<digest>"),
            ("update", "Queue", "research"),
            ("update", "Queue", "platform-ci"),
            *FLEET_FACTS,
            ("delete", "Queue", "eval"),
            ("delete", "Queue", "ml-<digest>"),
            ("delete", "LocalQueue", "eval/eval"),
            ("delete", "ClusterQueue", "eval"),
            ("delete", "Namespace", "eval-vc"),
            ("delete", "Namespace", "eval"),
        ],
    ),
    "change a priority value": (
        (),
        (lambda d: d["priorityClasses"][1].__setitem__("value", 2000),),
        [
            ("delete", "PriorityClass", "gang-standard"),
            ("replace", "PriorityClass", "gang-standard"),
            ("update", "WorkloadPriorityClass", "gang-standard"),
            *CONTEXT,
        ],
    ),
    "resize a pool": ((), (more_a100_nodes,), FLEET_FACTS),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_each_realistic_edit_applies_in_pulumi_order_with_no_rejected_step(name):
    base_edits, new_edits, expected = SCENARIOS[name]
    diff = diff_fleets(model(*base_edits), model(*new_edits), crds())
    assert shape(diff) == expected
    assert [(s["name"], s["reason"]) for s in diff.steps if s["verdict"] != "ok"] == []


IN_USE = {
    "change topology levels": (
        (
            lambda d: pool(d, "h100").__setitem__(
                "topologyLevels", ["topology.gpufleet.dev/rack", "kubernetes.io/hostname"]
            ),
        ),
        [("delete", "Topology", "h100"), ("replace", "Topology", "h100"), *CONTEXT],  # the context holds the levels
        "ResourceFlavors name it (h100)",
    ),
    "change a pool's node labels": (
        (lambda d: pool(d, "h100")["nodeLabels"].__setitem__("gpufleet.dev/generation", "2"),),
        [("delete", "ResourceFlavor", "h100"), ("replace", "ResourceFlavor", "h100"), *CONTEXT],
        "ClusterQueues name it (eval, llm-pretrain, platform-ci ...)",
    ),
}


@pytest.mark.parametrize("name", IN_USE)
def test_an_immutable_change_of_a_pool_in_use_is_a_replacement_blocked_by_kueues_finalizer(name):
    edits, expected, holders = IN_USE[name]
    diff = diff_fleets(model(), model(*edits), crds())
    assert shape(diff) == expected
    assert [s["verdict"] for s in diff.steps] == ["blocked", "blocked"] + ["ok"] * (
        len(expected) - 2
    )  # the context follows the labels
    assert holders in diff.steps[0]["reason"] and diff.steps[0]["fix"] == NEW_POOL_FIX
    assert "cannot change in place" in diff.steps[1]["why"]


def test_a_shrink_moves_the_teams_to_a_new_parent_sized_for_the_new_sums_and_deletes_the_old_one_last():
    diff = diff_fleets(model(), model(a100("research", 256)), crds())
    created, deleted = diff.steps[0]["name"], diff.steps[-1]["name"]
    assert created != deleted and created.startswith("ml-") and deleted.startswith("ml-")
    assert all("spec.parent" in s["fields"] for s in diff.steps[1:4])


def test_removing_a_retired_team_releases_its_namespaces_without_deleting_them():
    diff = diff_fleets(model(lifecycle("eval", "retired")), model(remove("eval")), crds())
    released = [s["reason"] for s in diff.steps if s["kind"] == "Namespace"]
    assert len(released) == 2 and all("retainOnDelete" in r for r in released)


def test_removing_a_live_team_is_blocked_with_the_retire_procedure_as_the_fix():
    diff = diff_fleets(model(), model(remove("eval")), crds())
    blocked = {(s["kind"], s["name"]) for s in diff.steps if s["verdict"] == "blocked"}
    assert blocked == {
        ("LocalQueue", "eval"),
        ("ClusterQueue", "eval"),
        ("Queue", "eval"),
        ("Namespace", "eval"),
        ("Namespace", "eval-vc"),
    }
    assert {s["fix"] for s in diff.steps if s["verdict"] == "blocked"} == {RETIRE_FIX}
    assert not diff.accepted


def test_the_quota_table_shows_before_and_after_per_team_and_pool():
    diff = diff_fleets(model(), model(a100("research", 256), a100("eval", 384)), crds())
    rows = {
        (r["team"], r["pool"]): (r["change"], r["before"]["nominal"], r["after"]["nominal"], r["after"]["share"])
        for r in diff.quota
    }
    assert rows == {("research", "a100"): ("changed", 384, 256, 25), ("eval", "a100"): ("changed", 256, 384, 37.5)}


@pytest.mark.parametrize(
    ("edits", "change"),
    [
        ((lifecycle("eval", "draining"),), "draining"),
        ((remove("eval"),), "removed"),
        ((add_vision,), "added"),
    ],
)
def test_the_quota_table_names_teams_added_draining_and_removed(edits, change):
    diff = diff_fleets(model(), model(*edits), crds())
    assert {r["change"] for r in diff.quota if r["team"] in ("eval", "vision")} == {change}


def test_a_resized_pool_and_a_moved_namespace_are_listed():
    def move_ns(d):
        team(d, "research")["namespaces"].remove("research-exp")
        team(d, "eval")["namespaces"].append("research-exp")

    diff = diff_fleets(model(), model(more_a100_nodes, move_ns), crds())
    assert diff.pools == [
        {
            "pool": "a100",
            "before": {
                "nodes": 128,
                "capacity": 1024,
                "system": "volcano",
                "placement": "per-pod",
                "dedicatedTo": None,
            },
            "after": {"nodes": 160, "capacity": 1280, "system": "volcano", "placement": "per-pod", "dedicatedTo": None},
        }
    ]
    assert diff.namespaces == [{"namespace": "research-exp", "from": "research", "to": "eval"}]


def a100_on_kueue(d: dict) -> None:
    pool(d, "a100")["system"] = "kueue"
    pool(d, "a100")["nodeLabels"].pop("volcano.sh/nodegroup-name")  # a Kueue pool carries no Volcano node group
    for t in d["teams"]:
        t.pop("volcanoNamespaces", None)  # every namespace is Kueue's now


def test_switching_a_pools_system_is_listed_with_the_pool_and_its_size():
    diff = diff_fleets(model(), model(a100_on_kueue), crds())
    assert diff.pools == [
        {
            "pool": "a100",
            "before": {
                "nodes": 128,
                "capacity": 1024,
                "system": "volcano",
                "placement": "per-pod",
                "dedicatedTo": None,
            },
            "after": {"nodes": 128, "capacity": 1024, "system": "kueue", "placement": "per-pod", "dedicatedTo": None},
        }
    ]


def test_switching_a_kueue_pool_to_native_gang_placement_is_listed_and_changes_only_the_fleet_context():
    def native(d: dict) -> None:
        d["kubernetes"] = {"version": "1.37", "featureGates": {"GenericWorkload": True, "WorkloadWithJob": True}}

    def native_h100(d: dict) -> None:
        native(d)
        pool(d, "h100")["placement"] = "native"

    diff = diff_fleets(model(native), model(native_h100), crds())
    assert [(p["pool"], p["before"]["placement"], p["after"]["placement"]) for p in diff.pools] == [
        ("h100", "per-pod", "native")
    ]
    assert pool_change(diff.pools[0], "->") == "gang placement per-pod -> native"
    changed = [s for s in diff.steps if s["verdict"] != "unchanged"]
    assert changed and {(s["kind"], tuple(s["fields"])) for s in changed} == {
        ("ConfigMap", ("data.fleet-context.json",))
    }


def test_switching_a_pools_system_under_live_teams_is_blocked_naming_the_team_not_the_retire_procedure():
    diff = diff_fleets(model(), model(a100_on_kueue), crds())
    blocked = [s for s in diff.steps if s["verdict"] == "blocked"]
    assert {(s["kind"], s["name"]) for s in blocked} == {
        ("Queue", "research"),
        ("Queue", "eval"),
        ("Queue", "platform-ci"),
    }
    for step in blocked:
        assert f"team {step['name']!r} is still live" in step["reason"] and step["fix"] != RETIRE_FIX
        assert "system" in step["fix"] and f"team {step['name']!r} stays in the model" in step["fix"]


def test_the_gang_admission_controllers_fleet_context_is_a_step_named_as_the_component_registers_it():
    diff = diff_fleets(model(), model(more_a100_nodes), crds())
    configmaps = [(s["op"], s["resource"], s["verdict"]) for s in diff.steps if s["kind"] == "ConfigMap"]
    assert configmaps == [
        ("delete", "gang-admission-configmap-fleet-context", "ok"),
        ("replace", "gang-admission-configmap-fleet-context", "ok"),
        ("replace", "gang-admission-configmap-rule-params", "ok"),
        ("delete", "gang-admission-configmap-rule-params", "ok"),
    ]


def test_the_controllers_fleet_context_replacement_says_admission_goes_on_and_is_no_webhook_outage():
    """Issue 37, item 6: every team change replaces the controller's ConfigMap; diff says what that replacement is."""
    diff = diff_fleets(model(), model(add_vision))
    delete, create = [s for s in diff.steps if s["resource"] == "gang-admission-configmap-fleet-context"]
    assert "the Kubernetes provider replaces a ConfigMap whose data changes" in delete["reason"]
    for step in (delete, create):
        assert "keeps admitting" in step["reason"] and "no webhook outage" in step["reason"], step["reason"]


def test_the_rule_params_replacement_is_create_before_delete_and_says_there_is_no_deny_window():
    """The params follow the fleet's facts and are named by their content: a new ConfigMap beside the old, the bindings
    switched to it, the old one deleted last; diff says so (a binding that found none would deny, parameterNotFoundAction)."""
    diff = diff_fleets(model(), model(add_vision))
    steps = [s for s in diff.steps if s["resource"] == "gang-admission-configmap-rule-params"]
    assert [(s["op"], s["replaced"]) for s in steps] == [("replace", False), ("delete", True)]
    assert steps[0]["name"] != steps[1]["name"]
    assert all("no deny window" in s["reason"] and "creating the new one first" in s["reason"] for s in steps), steps


@pytest.mark.parametrize("name", ["add a team", "remove a retired team", "resize a pool"])
def test_at_every_step_each_binding_finds_the_params_it_names(name):
    """Replaying the steps in Pulumi's order (diff's plan): after each one, every binding's paramRef names a ConfigMap
    the cluster holds, so parameterNotFoundAction: Deny never fires during the apply; and the bindings did move."""
    base_edits, new_edits, _ = SCENARIOS[name]
    base, new = stack_objects(model(*base_edits)), stack_objects(model(*new_edits))
    live = {ref(o.manifest): o.manifest for o in base}
    moved = 0
    for step in plan_steps(base, new):
        if step.op == "delete":
            live.pop(ref(step.old or {}))
        else:
            live[ref(step.new or {})] = step.new or {}
            moved += step.op == "update" and "paramRef" in (step.new or {}).get("spec", {})
        for m in live.values():
            if "paramRef" in m.get("spec", {}):
                wanted = ("ConfigMap", m["spec"]["paramRef"]["namespace"], m["spec"]["paramRef"]["name"])
                assert wanted in live, f"after {step.op} {step.key} {m['metadata']['name']} finds no params"
    assert moved == len(READING)
