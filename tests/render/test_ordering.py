"""gpufleet.render.ordering: rendered references become depends_on edges."""

from __future__ import annotations

import pytest

from gpufleet.render.ordering import depends_on_keys, references

KUEUE = "kueue.x-k8s.io/v1beta2"
VOLCANO = "scheduling.volcano.sh/v1beta1"


def obj(api: str, kind: str, name: str, **spec) -> dict:
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name}, "spec": spec}


def cluster_queue(name: str, cohort: str | None = None, flavors: tuple[str, ...] = ()) -> dict:
    groups = [{"coveredResources": ["nvidia.com/gpu"], "flavors": [{"name": f, "resources": []} for f in flavors]}]
    spec = {"resourceGroups": groups, **({"cohortName": cohort} if cohort else {})}
    return obj(KUEUE, "ClusterQueue", name, **spec)


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        (
            cluster_queue("a", "ml", ("h100", "l4")),
            [("Cohort", "ml"), ("ResourceFlavor", "h100"), ("ResourceFlavor", "l4")],
        ),
        (cluster_queue("a"), []),
        (obj(KUEUE, "LocalQueue", "a", clusterQueue="a"), [("ClusterQueue", "a")]),
        (obj(KUEUE, "Cohort", "child", parentName="root-cohort"), [("Cohort", "root-cohort")]),
        (obj(KUEUE, "Cohort", "root-cohort"), []),
        (obj(KUEUE, "ResourceFlavor", "h100", topologyName="h100"), [("Topology", "h100")]),
        (obj(VOLCANO, "Queue", "research", parent="ml"), [("Queue", "ml")]),
        (obj("scheduling.k8s.io/v1", "PriorityClass", "gang"), []),
    ],
)
def test_each_kind_refers_to_the_objects_named_in_its_spec(manifest, expected):
    assert references(manifest) == expected


def test_a_local_queue_depends_on_its_cluster_queue_which_depends_on_its_cohort_and_flavors():
    objects = [
        ("flavor-h100", obj(KUEUE, "ResourceFlavor", "h100")),
        ("cohort-ml", obj(KUEUE, "Cohort", "ml")),
        ("clusterqueue-research", cluster_queue("research", "ml", ("h100",))),
        (
            "localqueue-research-research",
            {
                **obj(KUEUE, "LocalQueue", "research", clusterQueue="research"),
                "metadata": {"name": "research", "namespace": "research"},
            },
        ),
    ]
    edges = depends_on_keys(objects)
    assert edges == {
        "flavor-h100": [],
        "cohort-ml": [],
        "clusterqueue-research": ["cohort-ml", "flavor-h100"],
        "localqueue-research-research": ["clusterqueue-research"],
    }


def test_a_child_volcano_queue_depends_on_its_parent_but_not_on_root_or_a_kueue_cohort_of_the_same_name():
    objects = [
        ("cohort-ml", obj(KUEUE, "Cohort", "ml")),
        ("queue-ml", obj(VOLCANO, "Queue", "ml", parent="root")),
        ("queue-research", obj(VOLCANO, "Queue", "research", parent="ml")),
    ]
    edges = depends_on_keys(objects)
    assert edges == {"cohort-ml": [], "queue-ml": [], "queue-research": ["queue-ml"]}


def test_a_cohort_name_without_a_cohort_object_adds_no_edge():
    assert depends_on_keys([("clusterqueue-a", cluster_queue("a", "shared-name-only"))]) == {"clusterqueue-a": []}
