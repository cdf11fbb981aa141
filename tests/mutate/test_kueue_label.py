"""The mutator adds the team's LocalQueue label only to the kinds Kueue manages."""

from __future__ import annotations

import jsonpatch
import pytest

from gpufleet.fleetctx.context import FleetContext, TeamContext
from gpufleet.kubetypes.vocab import QUEUE_LABEL
from gpufleet.mutate import mutate
from tests.mutate.builders import OTHER_NS, TEAM_NS, batch_job, fleet, pod_template, with_meta

LABEL = QUEUE_LABEL


def kueue_kind(api_version: str, kind: str, spec: dict | None = None) -> dict:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "w", "namespace": TEAM_NS},
        "spec": spec if spec is not None else {},
    }


def pytorch_job(**worker_spec) -> dict:
    return kueue_kind(
        "kubeflow.org/v1",
        "PyTorchJob",
        {
            "pytorchReplicaSpecs": {
                "Master": {"replicas": 1, "template": pod_template()},
                "Worker": {"replicas": 3, "template": pod_template(**worker_spec)},
            }
        },
    )


def pod(labels: dict | None = None, annotations: dict | None = None) -> dict:
    obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": TEAM_NS},
        "spec": pod_template()["spec"],
    }
    if labels:
        obj["metadata"]["labels"] = labels
    if annotations:
        obj["metadata"]["annotations"] = annotations
    return obj


def label_of(obj: dict, ctx=None) -> str | None:
    out = jsonpatch.apply_patch(obj, mutate(obj, ctx or fleet()))
    return out["metadata"].get("labels", {}).get(LABEL)


@pytest.mark.parametrize(
    "obj",
    [
        batch_job(),
        kueue_kind("jobset.x-k8s.io/v1alpha2", "JobSet", {"replicatedJobs": []}),
        pytorch_job(),
        kueue_kind("kubeflow.org/v2beta1", "MPIJob", {"mpiReplicaSpecs": {}}),
        kueue_kind("trainer.kubeflow.org/v1alpha1", "TrainJob", {"runtimeRef": {"name": "torch-distributed"}}),
        pod(labels={"kueue.x-k8s.io/pod-group-name": "g"}),
        pod(annotations={"kueue.x-k8s.io/pod-group-name": "g"}),
    ],
    ids=["job", "jobset", "pytorchjob", "mpijob", "trainjob", "pod-group-label", "pod-group-annotation"],
)
def test_every_kind_kueue_manages_gets_the_team_local_queue(obj):
    assert label_of(obj) == "research-lq"


def test_the_label_key_is_escaped_and_the_missing_labels_map_is_added_whole():
    assert mutate(batch_job(), fleet()) == [{"op": "add", "path": "/metadata/labels", "value": {LABEL: "research-lq"}}]


def test_an_existing_labels_map_gets_one_escaped_entry():
    ops = mutate(batch_job(labels={"app": "x"}), fleet())
    assert ops == [{"op": "add", "path": "/metadata/labels/kueue.x-k8s.io~1queue-name", "value": "research-lq"}]


def test_null_labels_are_replaced_by_a_map():
    job = batch_job()
    job["metadata"]["labels"] = None
    ops = mutate(job, fleet())
    assert ops == [{"op": "replace", "path": "/metadata/labels", "value": {LABEL: "research-lq"}}]


@pytest.mark.parametrize("value, expected", [("mine", "mine"), ("", "research-lq")])
def test_an_explicit_queue_label_is_kept_and_an_empty_one_is_filled(value, expected):
    assert label_of(batch_job(labels={LABEL: value})) == expected


@pytest.mark.parametrize(
    "obj",
    [
        pod(),
        pod(annotations={"scheduling.k8s.io/group-name": "pg"}),
        kueue_kind("apps/v1", "Deployment", {"template": pod_template()}),
        kueue_kind("scheduling.volcano.sh/v1beta1", "PodGroup", {"minMember": 2}),
        kueue_kind("v1", "ConfigMap"),
    ],
    ids=["plain-pod", "volcano-podgroup-pod", "deployment", "podgroup", "configmap"],
)
def test_kinds_kueue_does_not_manage_get_no_label(obj):
    assert mutate(obj, fleet()) == []


@pytest.mark.parametrize(
    "obj",
    [
        pytorch_job(schedulerName="volcano"),
        with_meta(batch_job(), "annotations", {"scheduling.volcano.sh/queue-name": "q"}),
        kueue_kind(
            "kubeflow.org/v1",
            "PyTorchJob",
            {"runPolicy": {"schedulingPolicy": {"queue": "q"}}, "pytorchReplicaSpecs": {}},
        ),
    ],
    ids=["template-scheduler", "queue-annotation", "scheduling-policy-queue"],
)
def test_a_workload_routed_to_volcano_gets_no_kueue_label(obj):
    assert mutate(obj, fleet()) == []


def test_a_job_created_by_a_jobset_is_left_to_its_parent_but_a_cronjob_child_is_labelled():
    def owned(api_version: str, kind: str) -> dict:
        job = batch_job()
        job["metadata"]["ownerReferences"] = [
            {"apiVersion": api_version, "kind": kind, "name": "o", "uid": "1", "controller": True}
        ]
        return job

    assert mutate(owned("jobset.x-k8s.io/v1alpha2", "JobSet"), fleet()) == []
    assert label_of(owned("batch/v1", "CronJob")) == "research-lq"


def test_no_label_outside_team_namespaces_or_for_a_team_without_a_local_queue():
    assert mutate(batch_job(namespace=OTHER_NS), fleet()) == []
    assert mutate(batch_job(), fleet(local_queue=None)) == []


def test_a_custom_queue_label_key_from_the_fleet_context_is_used():
    from gpufleet.fleetctx.context import FleetContext
    from tests.mutate.builders import fleet_dict

    ctx = FleetContext.from_dict(fleet_dict() | {"queueLabel": "example.com/queue~name"})
    assert mutate(batch_job(labels={}), ctx) == [
        {"op": "add", "path": "/metadata/labels/example.com~1queue~0name", "value": "research-lq"}
    ]


def test_no_kueue_label_is_added_in_a_teams_volcano_namespace():
    team = TeamContext("alpha", ("alpha", "alpha-vc"), "alpha", "alpha", ("l4", "t4"), volcano_namespaces=("alpha-vc",))
    context = FleetContext("dev", (team,), ())
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}},
    }
    assert mutate(job, context, "alpha-vc") == []
    assert mutate(job, context, "alpha") == [
        {"op": "add", "path": "/metadata/labels", "value": {"kueue.x-k8s.io/queue-name": "alpha"}}
    ]
