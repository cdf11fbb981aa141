"""GANG101: gangs meant for Volcano must send their pods to Volcano."""

from __future__ import annotations

import pytest

from gpufleet.rules.api import CheckContext
from gpufleet.settings import rule_options
from tests.rules import builders as b
from tests.rules.helpers import WITH_FLEET, fixed, paths

CODE = "GANG101"
VOLCANO_POD = {"scheduling.k8s.io/group-name": "pg"}


@pytest.mark.parametrize(
    "job, expected",
    [
        (b.volcano_job(scheduler_name="default-scheduler"), ["spec.schedulerName"]),
        (b.volcano_job(scheduler_name=None), []),
        (b.volcano_job(scheduler_name="volcano"), []),
        (b.volcano_job(scheduler_name="default-scheduler", tasks=[b.task(scheduler_name="volcano")]), []),
    ],
)
def test_a_volcano_job_must_not_hand_its_templates_to_another_scheduler(job, expected):
    assert paths(CODE, job) == expected


@pytest.mark.parametrize(
    "obj, expected",
    [
        (b.pytorch_job(master=None, queue="research"), ["spec.pytorchReplicaSpecs.Worker.template.spec.schedulerName"]),
        (b.pytorch_job(master=None, queue="research", scheduler_name="volcano"), []),
        (b.pytorch_job(master=None), []),
        (b.pod(annotations={"scheduling.volcano.sh/queue-name": "research"}), ["spec.schedulerName"]),
        (b.pod(annotations=VOLCANO_POD), ["spec.schedulerName"]),
        (b.pod(annotations=VOLCANO_POD, scheduler_name="volcano"), []),
        (
            b.batch_job(annotations={"scheduling.volcano.sh/queue-name": "research"}),
            ["spec.template.spec.schedulerName"],
        ),
    ],
)
def test_a_workload_aimed_at_volcano_without_a_scheduler_name_is_flagged(obj, expected):
    assert paths(CODE, obj) == expected


def test_an_explicit_other_scheduler_is_left_to_gang102():
    assert paths(CODE, b.pod(annotations=VOLCANO_POD, scheduler_name="default-scheduler")) == []


@pytest.mark.parametrize(
    "namespace, expected",
    [
        ("sim", ["spec.replicatedJobs[0].template.spec.template.spec.schedulerName"]),
        ("vision", []),
        ("research", []),
    ],
)
def test_with_a_fleet_a_gang_of_a_volcano_only_team_must_reach_volcano(namespace, expected):
    assert paths(CODE, b.jobset(namespace=namespace), WITH_FLEET) == expected
    assert paths(CODE, b.jobset(namespace=namespace)) == []


def test_the_volcano_scheduler_names_are_an_option():
    ctx = CheckContext(options=rule_options({CODE: {"volcanoSchedulers": ["volcano-gpu"]}}))
    assert paths(CODE, b.volcano_job(scheduler_name="volcano-gpu"), ctx) == []
    assert paths(CODE, b.volcano_job(scheduler_name="volcano"), ctx) == ["spec.schedulerName"]


def test_remediation_names_volcano_where_nothing_was_named():
    out = fixed(CODE, b.pytorch_job(queue="research"))
    specs = out["spec"]["pytorchReplicaSpecs"]
    assert {role: s["template"]["spec"]["schedulerName"] for role, s in specs.items()} == {
        "Master": "volcano",
        "Worker": "volcano",
    }
    assert fixed(CODE, b.volcano_job(scheduler_name="kube-batch"))["spec"]["schedulerName"] == "volcano"


@pytest.mark.parametrize("gang_scheduling, expected", [("volcano", 0), ("", 2)])
def test_pods_an_operator_sends_to_volcano_itself_need_no_scheduler_name(gang_scheduling, expected):
    """mpi-operator with --gang-scheduling=volcano writes schedulerName into every pod (podgroup.go
    decoratePodTemplateSpec); without it the pods of a Volcano-only team's MPIJob reach default-scheduler."""
    from dataclasses import replace

    from gpufleet.fleetctx.operators import OperatorProfile
    from gpufleet.rules.api import CheckContext
    from tests.rules.helpers import FLEET

    mpi = {
        "apiVersion": "kubeflow.org/v2beta1",
        "kind": "MPIJob",
        "metadata": {"name": "mpi", "namespace": "sim"},
        "spec": {
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "template": {"spec": {"containers": [{"name": "l", "image": "x"}]}}},
                "Worker": {
                    "replicas": 2,
                    "template": {
                        "spec": {
                            "containers": [{"name": "w", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 8}}}]
                        }
                    },
                },
            }
        },
    }
    profile = OperatorProfile.from_dict({"mpiOperator": {"gangScheduler": gang_scheduling}})
    ctx = CheckContext(fleet=replace(FLEET, operators=profile))
    assert len(paths(CODE, mpi, ctx)) == expected
