"""Steps: create/update/replace/delete from two renderings, in Pulumi's order."""

from __future__ import annotations

from gpufleet.diff.steps import changed_fields, plan_steps, topological
from gpufleet.render import RenderedObject
from gpufleet.render.immutable import replace_paths, replace_reasons


def obj(key, kind, name, protect=False, api="kueue.x-k8s.io/v1beta2", **spec):
    return RenderedObject(
        key, {"apiVersion": api, "kind": kind, "metadata": {"name": name}, "spec": spec}, "kueue", protect
    )


def test_changed_fields_lists_the_leaves_that_differ_added_or_removed():
    assert changed_fields({"a": {"b": 1, "c": 2}, "d": 1}, {"a": {"b": 1, "c": 3}, "e": 1}) == ["a.c", "d", "e"]
    assert changed_fields({"a": [1, 2]}, {"a": [1, 2]}) == []


def test_topological_puts_what_an_object_refers_to_first_and_keeps_registration_order_otherwise():
    child = (
        "lq",
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "LocalQueue",
            "metadata": {"name": "a"},
            "spec": {"clusterQueue": "a"},
        },
    )
    parent = (
        "cq",
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "a"}, "spec": {}},
    )
    other = (
        "rf",
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "x"}, "spec": {}},
    )
    assert topological([child, other, parent]) == ["cq", "lq", "rf"]


def test_an_immutable_change_is_a_delete_then_a_replace_and_removed_objects_go_last_in_reverse():
    base = [
        obj("topology-h", "Topology", "h", levels=[{"nodeLabel": "a"}]),
        obj("cohort-x", "Cohort", "x"),
        obj("cq-y", "ClusterQueue", "y", cohortName="x"),
    ]
    new = [obj("topology-h", "Topology", "h", levels=[{"nodeLabel": "b"}])]
    steps = plan_steps(base, new)
    assert [(s.op, s.key, s.replaced) for s in steps] == [
        ("delete", "topology-h", True),
        ("replace", "topology-h", False),
        ("delete", "cq-y", False),
        ("delete", "cohort-x", False),
    ]
    assert steps[1].why == "spec.levels cannot change in place"


def test_unchanged_objects_make_no_step_and_a_mutable_change_is_an_update():
    base = [obj("cq-y", "ClusterQueue", "y", stopPolicy="None")]
    assert plan_steps(base, base) == []
    steps = plan_steps(base, [obj("cq-y", "ClusterQueue", "y", stopPolicy="HoldAndDrain")])
    assert [(s.op, s.fields) for s in steps] == [("update", ("spec.stopPolicy",))]


def test_a_flavor_without_topology_only_lists_its_topology_name_as_immutable():
    plain = obj("rf", "ResourceFlavor", "h", nodeLabels={"a": "1"}).manifest
    tas = obj("rf", "ResourceFlavor", "h", nodeLabels={"a": "1"}, topologyName="h").manifest
    assert replace_paths(plain) == ["spec.topologyName"]
    assert replace_paths(tas) == ["spec.nodeLabels", "spec.tolerations", "spec.topologyName"]
    assert replace_reasons(plain, {**plain, "spec": {"nodeLabels": {"a": "2"}}}) == []


def config_map(key: str, **data: str) -> RenderedObject:
    return RenderedObject(
        key,
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n"}, "data": data},
        "core",
        False,
    )


def test_a_config_map_whose_data_changes_is_replaced_by_the_kubernetes_provider_delete_first():
    steps = plan_steps([config_map("cm", context="a")], [config_map("cm", context="b")])
    why = (
        "data cannot change in place: the Kubernetes provider replaces a ConfigMap whose data changes "
        "(enableConfigMapMutable is off), deleting it first as its name is fixed"
    )
    assert [(s.op, s.replaced, s.why) for s in steps] == [("delete", True, why), ("replace", False, why)]


def test_a_config_map_whose_labels_change_is_updated_in_place():
    labelled = config_map("cm", context="a")
    labelled.manifest["metadata"]["labels"] = {"x": "1"}
    assert [s.op for s in plan_steps([config_map("cm", context="a")], [labelled])] == ["update"]
