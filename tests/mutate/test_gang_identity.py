"""The mutator stamps gpufleet.dev/gang on every pod template of a gang, where absent, when the context asks for it."""

from __future__ import annotations

import copy

import jsonpatch
import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.kubetypes.vocab import GANG_LABEL
from gpufleet.mutate import mutate
from gpufleet.workloads import build_view
from gpufleet.workloads.identity import label_value
from tests.mutate.builders import OTHER_NS, TEAM_NS, batch_job, fleet_dict, pod_template, volcano_job


def gang_fleet() -> FleetContext:
    return FleetContext.from_dict({**fleet_dict(), "gangLabel": GANG_LABEL})


def jobset(name: str = "llm") -> dict:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": TEAM_NS},
        "spec": {
            "replicatedJobs": [
                {
                    "name": "workers",
                    "replicas": 4,
                    "template": {"spec": {"parallelism": 2, "completions": 2, "template": pod_template()}},
                }
            ]
        },
    }


def stamped(obj: dict) -> dict:
    return jsonpatch.apply_patch(obj, mutate(obj, gang_fleet()))


def labels_at(obj: dict, path: str) -> dict:
    return next(t for t in build_view(obj).templates if t.path == path).labels


@pytest.mark.parametrize(
    "obj, paths, identity",
    [
        (volcano_job(2, 3, name="train"), ["spec.tasks[0].template", "spec.tasks[1].template"], "train"),
        (jobset("llm"), ["spec.replicatedJobs[0].template.spec.template"], "llm"),
        (batch_job(), ["spec.template"], "job"),
    ],
)
def test_every_pod_template_of_a_gang_gets_the_gangs_name(obj, paths, identity):
    out = stamped(obj)
    assert [labels_at(out, p)[GANG_LABEL] for p in paths] == [identity] * len(paths)


def test_a_pod_in_a_pod_group_gets_the_groups_name():
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "p-0",
            "namespace": TEAM_NS,
            "labels": {"kueue.x-k8s.io/pod-group-name": "grp"},
            "annotations": {"kueue.x-k8s.io/pod-group-total-count": "4"},
        },
        "spec": pod_template()["spec"],
    }
    assert stamped(pod)["metadata"]["labels"][GANG_LABEL] == "grp"


def test_an_explicit_identity_is_never_overwritten():
    job = volcano_job(2, name="train")
    job["spec"]["tasks"][0]["template"]["metadata"] = {"labels": {GANG_LABEL: "mine"}}
    assert not any(op["path"].endswith("gpufleet.dev~1gang") for op in mutate(job, gang_fleet()))


@pytest.mark.parametrize(
    "obj",
    [
        batch_job(parallelism=1),  # not a gang
        {**jobset(), "metadata": {"generateName": "llm-", "namespace": TEAM_NS}},  # no name yet at admission
        {
            **batch_job(),
            "metadata": {
                "name": "w",
                "namespace": TEAM_NS,  # a JobSet's Job: the JobSet names the gang
                "ownerReferences": [
                    {
                        "apiVersion": "jobset.x-k8s.io/v1alpha2",
                        "kind": "JobSet",
                        "name": "llm",
                        "uid": "u",
                        "controller": True,
                    }
                ],
            },
        },
        batch_job(namespace=OTHER_NS),  # no team's namespace: the mutator does nothing there
    ],
)
def test_no_identity_is_stamped_where_none_can_be_right(obj):
    assert not any(
        "gpufleet.dev~1gang" in op["path"] or GANG_LABEL in str(op["value"]) for op in mutate(obj, gang_fleet())
    )


def test_without_a_gang_label_in_the_context_nothing_is_stamped():
    context = FleetContext.from_dict(fleet_dict())
    assert not any(GANG_LABEL in str(op["value"]) for op in mutate(volcano_job(2), context))


def test_stamping_is_idempotent():
    once = stamped(volcano_job(2, 2))
    assert mutate(copy.deepcopy(once), gang_fleet()) == []


@pytest.mark.parametrize("name", ["a" * 63, "a" * 64, "b" * 200 + "-x"])
def test_identities_are_valid_label_values_and_long_names_stay_distinct(name):
    value = label_value(name)
    assert len(value) <= 63 and value[0].isalnum() and value[-1].isalnum()
    assert (value == name) == (len(name) <= 63)
    assert label_value(name + "z") != value


def jobset_with(first: str, second: str, status: str) -> dict:
    """A JobSet whose second replicatedJob waits for the first to reach ``status`` (JobSet dependsOn)."""
    obj = jobset("llm")
    job = copy.deepcopy(obj["spec"]["replicatedJobs"][0])
    obj["spec"]["replicatedJobs"] = [
        {**copy.deepcopy(job), "name": first, "replicas": 1},
        {**job, "name": second, "dependsOn": [{"name": first, "status": status}]},
    ]
    return obj


def runtime_with_initializer() -> dict:
    """A Kubeflow Trainer TrainingRuntime like upstream's 05-multi-step.yaml: a dataset initializer, then the nodes."""
    spec = jobset_with("dataset-initializer", "node", "Complete")["spec"]
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainingRuntime",
        "metadata": {"name": "torch-with-dataset-init", "namespace": TEAM_NS},
        "spec": {"mlPolicy": {"numNodes": 2, "torch": {}}, "template": {"spec": spec}},
    }


@pytest.mark.parametrize("obj", [jobset_with("initializer", "workers", "Complete"), runtime_with_initializer()])
def test_an_initializer_that_the_ranks_wait_for_is_not_stamped_the_ranks_are(obj):
    """Issue 20: a Running initializer with the gang label looks like a gang that runs and never steps."""
    out = stamped(obj)
    first, ranks = build_view(out).templates
    assert GANG_LABEL not in first.labels
    assert ranks.labels[GANG_LABEL] == obj["metadata"]["name"]


def test_a_launcher_that_waits_for_ready_workers_is_a_rank_and_is_stamped():
    out = stamped(jobset_with("workers", "launcher", "Ready"))
    assert [t.labels[GANG_LABEL] for t in build_view(out).templates] == ["llm", "llm"]
