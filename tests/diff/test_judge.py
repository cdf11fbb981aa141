"""The judge: what the cluster would say about each step, with the problems gpufleet's rendering avoids."""

from __future__ import annotations

import copy

import pytest

from gpufleet.diff import diff_fleets
from gpufleet.diff.judge import Cluster
from gpufleet.diff.steps import Step, plan_steps
from gpufleet.render import RenderedObject, render_all
from tests.crdschema.builders import kueue_crds
from tests.diff.test_scenarios import a100, model


def in_place_parents(base: list[RenderedObject], new: list[RenderedObject]) -> list[RenderedObject]:
    """``new`` as the old renderer made it: the parent queue keeps its name, only its sums change."""
    old_name = next(o.manifest["metadata"]["name"] for o in base if o.key.startswith("volcanoqueue-ml-"))
    out = []
    for obj in new:
        manifest = copy.deepcopy(obj.manifest)
        key = obj.key
        if key.startswith("volcanoqueue-ml-"):
            manifest["metadata"]["name"], key = old_name, f"volcanoqueue-{old_name}"
        if manifest.get("spec", {}).get("parent", "").startswith("ml-"):
            manifest["spec"]["parent"] = old_name
        out.append(RenderedObject(key, manifest, obj.engine, obj.protect))
    return out


def verdicts(base, new):
    cluster = Cluster(base, None)
    steps = plan_steps(base, new)
    return [
        (s.op, s.new["metadata"]["name"] if s.new else s.old["metadata"]["name"], cluster.judge(s, steps).verdict)
        for i, s in enumerate(steps)
    ]


@pytest.mark.parametrize(
    ("edits", "rejected"),
    [
        ((a100("research", 256),), "ml"),  # the parent shrinks first, below its children's old sum
        ((a100("research", 256), a100("eval", 384)), "eval"),  # unchanged total: eval may grow before research shrinks
    ],
)
def test_an_in_place_parent_with_the_exact_sum_would_be_rejected(edits, rejected):
    base = list(render_all(model()).objects)
    new = in_place_parents(base, list(render_all(model(*edits)).objects))
    judged = verdicts(base, new)
    assert [name.split("-")[0] for _, name, verdict in judged if verdict == "rejected"] == [rejected]


def test_gpufleets_digest_named_parent_takes_the_same_edits_without_a_rejection():
    diff = diff_fleets(model(), model(a100("research", 256), a100("eval", 384)))
    assert diff.accepted and diff.steps[0]["op"] == "create" and diff.steps[-1]["op"] == "delete"


def test_a_step_on_a_protected_resource_is_blocked_and_leaves_the_cluster_unchanged():
    base = list(render_all(model()).objects)
    cluster = Cluster(base, None)
    cq = next(o for o in base if o.key == "clusterqueue-eval")
    verdict = cluster.judge(Step("delete", cq.key, cq.manifest, None, True))
    assert verdict.verdict == "blocked" and "lifecycle: retired" in verdict.fix
    assert ("ClusterQueue", "", "eval") in cluster.objects


def test_creating_an_object_that_exists_is_rejected():
    base = list(render_all(model()).objects)
    obj = base[0]
    assert Cluster(base, None).judge(Step("create", obj.key, None, obj.manifest, False)).verdict == "rejected"


@pytest.mark.shared
def test_an_in_place_update_of_an_immutable_field_is_rejected_by_the_crds_transition_rule():
    crds = kueue_crds()
    base = list(render_all(model()).objects)
    topology = next(o for o in base if o.key == "topology-h100")
    edited = copy.deepcopy(topology.manifest)
    edited["spec"]["levels"] = edited["spec"]["levels"][1:]
    verdict = Cluster(base, crds).judge(Step("update", topology.key, topology.manifest, edited, False))
    assert verdict.verdict == "rejected" and "field is immutable" in verdict.reason


def test_an_in_place_priority_value_change_is_rejected_by_the_built_in_rule():
    base = list(render_all(model()).objects)
    pc = next(o for o in base if o.key == "priorityclass-gang-standard")
    edited = {**pc.manifest, "value": 5}
    verdict = Cluster(base, None).judge(Step("update", pc.key, pc.manifest, edited, False))
    assert verdict.verdict == "rejected" and "may not be changed" in verdict.reason


def test_replacing_a_flavor_that_no_cluster_queue_names_completes():
    base = list(render_all(model()).objects)
    flavor = next(o for o in base if o.key == "resourceflavor-h100")
    cluster = Cluster([o for o in base if o.manifest["kind"] != "ClusterQueue"], None)
    step = Step(
        "delete", flavor.key, flavor.manifest, None, False, why="spec.nodeLabels cannot change in place", replaced=True
    )
    assert cluster.judge(step).verdict == "ok"
    assert cluster.judge(Step("replace", flavor.key, flavor.manifest, flavor.manifest, False)).verdict == "ok"


def test_another_config_maps_replacement_says_what_the_provider_does_and_nothing_about_the_controller():
    def config_map(data: str) -> RenderedObject:
        return RenderedObject(
            "cm",
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n"}, "data": {"k": data}},
            "core",
            False,
        )

    steps = plan_steps([config_map("a")], [config_map("b")])
    cluster = Cluster([config_map("a")], None)
    reasons = [cluster.judge(s, steps).reason for s in steps]
    assert all("the Kubernetes provider replaces a ConfigMap whose data changes" in r for r in reasons), reasons
    assert not any("admitting" in r for r in reasons)
