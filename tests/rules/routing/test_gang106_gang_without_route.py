"""GANG106: a multi-pod GPU gang that names no route is reported; --fleet's Kueue settings decide implicit routing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.rules import builders as b
from tests.rules.helpers import FLEET, paths

CODE = "GANG106"
LABEL = "metadata.labels[kueue.x-k8s.io/queue-name]"


def fleet_ctx(manage: bool | None, managed: tuple[str, ...] | None) -> CheckContext:
    return CheckContext(fleet=replace(FLEET, manage_jobs_without_queue_name=manage, kueue_managed_namespaces=managed))


@pytest.mark.parametrize(
    "obj, expected",
    [
        (b.batch_job(parallelism=64, gpus=8), [LABEL]),
        (b.batch_job(parallelism=1, gpus=8), []),
        (b.batch_job(parallelism=64), []),
        (b.batch_job(parallelism=64, gpus=8, labels={"kueue.x-k8s.io/queue-name": "research"}), []),
        (b.batch_job(parallelism=64, gpus=8, scheduler_name="volcano"), []),
        (b.deployment(replicas=8), []),
    ],
)
def test_without_a_fleet_an_unrouted_gpu_gang_is_reported_and_a_single_pod_job_is_not(obj, expected):
    assert paths(CODE, obj) == expected


@pytest.mark.parametrize(
    "namespace, manage, managed, expected",
    [
        ("robotics", True, ("research", "vision"), [LABEL]),  # Kueue does not select the namespace
        ("robotics", False, ("robotics",), [LABEL]),  # selected, but unlabelled jobs are ignored
        ("robotics", True, ("robotics",), []),  # Kueue holds it: routing is implicit
        ("robotics", None, None, [LABEL]),  # an older context says nothing
        ("research", False, (), []),  # a team with a LocalQueue: GANG103's
        ("sim", False, (), []),  # a Volcano-only team: GANG101's
        ("scratch", False, (), []),  # no team: GANG105's
    ],
)
def test_with_a_fleet_the_namespace_kueue_settings_decide(namespace, manage, managed, expected):
    obj = b.batch_job(parallelism=8, gpus=4, namespace=namespace)
    assert paths(CODE, obj, fleet_ctx(manage, managed)) == expected


def test_the_message_says_how_many_pods_and_that_fleet_decides():
    [finding] = engine.check_object(b.batch_job(parallelism=64, gpus=8), select=[CODE])
    assert "64-pod GPU gang" in finding.message and "--fleet" in finding.message


def test_a_fleet_reason_names_the_team():
    [finding] = engine.check_object(
        b.batch_job(parallelism=8, gpus=4, namespace="robotics"), fleet_ctx(True, ("research",)), select=[CODE]
    )
    assert "team 'robotics'" in finding.message and "Kueue does not manage" in finding.message


def test_a_trainjob_whose_runtime_in_the_same_run_sets_a_pod_group_policy_is_routed():
    job = b.train_job(num_nodes=4)
    job["spec"]["runtimeRef"] = {"name": "torch-gang", "kind": "ClusterTrainingRuntime"}
    job["spec"]["trainer"]["resourcesPerNode"] = {"limits": {"nvidia.com/gpu": 8}}
    runtime = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "ClusterTrainingRuntime",
        "metadata": {"name": "torch-gang"},
        "spec": {"podGroupPolicy": {"coscheduling": {}}},
    }
    plain = {**runtime, "spec": {}}
    assert paths(CODE, job) == [LABEL]
    assert paths(CODE, job, objects=(runtime,)) == []
    assert paths(CODE, job, objects=(plain,)) == [LABEL]


def _gpu_runtime(num_nodes=4, **template):
    return b.training_runtime(
        num_nodes=num_nodes,
        replicated_jobs=[b.replicated_job("node", replicas=None, parallelism=None, gpus=8, **template)],
    )


@pytest.mark.parametrize(
    "job, runtime, expected",
    [
        (b.train_job(num_nodes=None), _gpu_runtime(num_nodes=4), [LABEL]),
        (b.train_job(num_nodes=4), _gpu_runtime(num_nodes=1), [LABEL]),
        (b.train_job(num_nodes=1), _gpu_runtime(num_nodes=4), []),
        (b.train_job(num_nodes=4), _gpu_runtime(num_nodes=4, scheduler_name="volcano"), []),
        (b.train_job(num_nodes=4), b.training_runtime(num_nodes=4), []),
    ],
    ids=["runtime-nodes", "trainjob-nodes-override", "trainjob-one-node-overrides", "runtime-routes", "no-gpus"],
)
def test_a_train_job_is_judged_with_its_runtimes_templates_and_node_count(job, runtime, expected):
    assert paths(CODE, job, objects=(runtime,)) == expected


def test_a_train_job_alone_has_no_templates_so_its_runtimes_gpus_are_unknown():
    assert paths(CODE, b.train_job(num_nodes=4)) == []


def test_the_fix_for_a_coscheduling_team_offers_its_pod_group_not_kueue_or_volcano():
    """Issue 32, item 16: team robotics's pool is scheduled by scheduler-plugins' coscheduling."""
    [finding] = engine.check_object(
        b.batch_job(name="train", parallelism=8, gpus=4, namespace="robotics"),
        fleet_ctx(True, ("research",)),
        select=[CODE],
    )
    assert "scheduling.x-k8s.io/pod-group: train" in finding.fix and "minMember 8" in finding.fix
    assert "queue-name" not in finding.fix and "schedulerName: volcano" not in finding.fix
    assert "schedulerName: scheduler-plugins-scheduler" in finding.fix


def test_the_fix_elsewhere_still_offers_every_route():
    [finding] = engine.check_object(b.batch_job(parallelism=64, gpus=8), select=[CODE])
    assert "queue-name" in finding.fix and "volcano" in finding.fix
