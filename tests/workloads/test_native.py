"""What the Job controller does with a Job at 1.36 and 1.37 (kubernetes v1.36.0 and v1.37.2), and the native views."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.workloads import view
from gpufleet.workloads.native import job_gang, near_miss, scheduling_group


def job(
    parallelism: int = 8,
    completions: int | None = 8,
    mode: str | None = "Indexed",
    scheduling: Any = None,
    group: str | None = None,
    owned: bool = False,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "parallelism": parallelism,
        "template": {"spec": {"containers": [{"name": "w", "image": "t"}]}},
    }
    if completions is not None:
        spec["completions"] = completions
    if mode is not None:
        spec["completionMode"] = mode
    if scheduling is not None:
        spec["scheduling"] = scheduling
    if group is not None:
        spec["template"]["spec"]["schedulingGroup"] = {"podGroupName": group}
    meta: dict[str, Any] = {"name": "train", "namespace": "research"}
    if owned:
        meta["ownerReferences"] = [
            {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "js", "uid": "u", "controller": True}
        ]
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}


GANG = {"schedulingPolicy": {"gang": {}}}

CASES_136 = [
    ("indexed, parallelism == completions", job(), 8),
    ("not Indexed", job(mode=None), None),
    ("NonIndexed", job(mode="NonIndexed"), None),
    ("parallelism != completions (a sweep)", job(completions=64), None),
    ("completions unset", job(completions=None), None),
    ("one pod", job(parallelism=1, completions=1), None),
    ("its own schedulingGroup", job(group="pg"), None),
]
CASES_137 = [
    ("indexed, parallelism == completions, no spec.scheduling: basic", job(), None),
    ("spec.scheduling gang, minCount unset: parallelism", job(scheduling=GANG), 8),
    ("spec.scheduling gang minCount 8", job(scheduling={"schedulingPolicy": {"gang": {"minCount": 8}}}), 8),
    ("spec.scheduling basic", job(scheduling={"schedulingPolicy": {"basic": {}}}), None),
    ("a JobSet's child Job: the parent owns the Workload", job(scheduling=GANG, owned=True), None),
    ("its own schedulingGroup", job(scheduling=GANG, group="pg"), None),
]


@pytest.mark.parametrize(("shape", "obj", "minimum"), CASES_136, ids=[c[0] for c in CASES_136])
def test_a_136_job_controller_gangs_an_indexed_job_with_parallelism_equal_to_completions_only(shape, obj, minimum):
    gang = job_gang(obj, 36)
    assert (gang.min_count if gang else None) == minimum


@pytest.mark.parametrize(("shape", "obj", "minimum"), CASES_137, ids=[c[0] for c in CASES_137])
def test_a_137_job_controller_gangs_only_a_job_that_asks_in_spec_scheduling(shape, obj, minimum):
    gang = job_gang(obj, 37)
    assert (gang.min_count if gang else None) == minimum


def test_a_135_job_controller_gangs_nothing():
    assert job_gang(job(), 35) is None and job_gang(job(scheduling=GANG), 35) is None


@pytest.mark.parametrize(
    ("obj", "minor", "patch"),
    [
        (job(mode=None), 36, ("spec.completionMode", "Indexed")),
        (job(mode=None), 37, ("spec.scheduling", GANG)),
        (job(), 37, ("spec.scheduling", GANG)),
    ],
    ids=["136-completion-mode", "137-not-indexed", "137-indexed"],
)
def test_a_near_miss_is_one_field_away_from_a_gang(obj, minor, patch):
    found = near_miss(obj, minor)
    assert found is not None and (str(found[0]), found[1]) == patch


@pytest.mark.parametrize(
    ("obj", "minor"),
    [
        (job(), 36),
        (job(scheduling=GANG), 37),  # already a gang
        (job(mode="NonIndexed"), 36),  # the user chose NonIndexed
        (job(completions=64, mode=None), 36),
        (job(completions=64), 37),  # a sweep
        (job(completions=None), 37),
        (job(parallelism=1, completions=1), 37),
        (job(group="pg"), 37),
        (job(owned=True), 37),  # its own group; a JobSet's child
        (job(scheduling={"schedulingPolicy": {"basic": {}}}), 37),  # spec.scheduling is immutable, set or not
        (job(), 35),
    ],
    ids=[
        "136-gang",
        "137-gang",
        "nonindexed",
        "136-sweep",
        "137-sweep",
        "no-completions",
        "one-pod",
        "own-group",
        "child",
        "basic",
        "135",
    ],
)
def test_what_is_not_a_near_miss_is_left_alone(obj, minor):
    assert near_miss(obj, minor) is None


def test_pods_join_a_podgroup_by_schedulinggroup_or_at_135_by_workloadref():
    assert scheduling_group({"schedulingGroup": {"podGroupName": "pg"}}) == "pg"
    assert scheduling_group({"workloadRef": {"name": "w", "podGroup": "workers"}}) == "w"
    assert scheduling_group({}) is None
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"schedulingGroup": {"podGroupName": "pg"}},
    }
    assert (view(pod).pod_group, view(pod).is_gang) == ("pg", True)


@pytest.mark.parametrize(
    ("obj", "minimum", "path"),
    [
        (
            {
                "kind": "Workload",
                "spec": {
                    "podGroupTemplates": [
                        {"name": "a", "schedulingPolicy": {"basic": {}}},
                        {"name": "b", "schedulingPolicy": {"gang": {"minCount": 4}}},
                    ]
                },
            },
            4,
            "spec.podGroupTemplates[1].schedulingPolicy.gang.minCount",
        ),
        (
            {"kind": "Workload", "spec": {"podGroups": [{"name": "a", "policy": {"gang": {"minCount": 3}}}]}},
            3,
            "spec.podGroups[0].policy.gang.minCount",
        ),
        (
            {"kind": "PodGroup", "spec": {"schedulingPolicy": {"gang": {"minCount": 5}}}},
            5,
            "spec.schedulingPolicy.gang.minCount",
        ),
    ],
    ids=["136-workload", "135-workload", "podgroup"],
)
def test_a_native_workload_or_podgroup_view_carries_its_gang_minimum_and_its_path(obj, minimum, path):
    found = view({"apiVersion": "scheduling.k8s.io/v1beta1", "metadata": {"name": "x"}, **obj})
    assert (found.gang_min, str(found.gang_min_path), found.is_gang) == (minimum, path, True)


def test_a_basic_podgroup_is_no_gang():
    found = view(
        {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": "x"},
            "spec": {"schedulingPolicy": {"basic": {}}},
        }
    )
    assert (found.gang_min, found.is_gang) == (None, False)
