"""The batch/v1 Job and CronJob reader against the Job controller's behaviour (kubernetes v1.37.2)."""

from __future__ import annotations

import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.kubetypes import workload_api as wa
from gpufleet.workloads.contract.types import GANG_SCOPES
from tests.workloads.contract.builders import contract, job, steps

QUEUE = {"kueue.x-k8s.io/queue-name": "team-a"}
NATIVE_FLEET = FleetContext(
    "f", (), (), kubernetes_minor=37, workload_gates=frozenset({wa.GENERIC_WORKLOAD, wa.WORKLOAD_WITH_JOB})
)
GANG = {"schedulingPolicy": {"gang": {}}}


@pytest.mark.parametrize(
    "spec, count, role, count_from",
    [
        # SetDefaults_Job: parallelism and completions 1 when both unset
        ({}, 1, "rank", "kubernetes v1.37.2 pkg/apis/batch/v1/defaults.go SetDefaults_Job"),
        # manageJob: min(parallelism, completions) pods at once
        ({"parallelism": 8, "completions": 8}, 8, "rank", "spec.parallelism"),
        ({"parallelism": 8, "completions": 4}, 4, "rank", "spec.completions"),
        # completions above parallelism: a sweep, indexes run a few at a time
        ({"parallelism": 2, "completions": 10}, 2, "sweep", "spec.parallelism"),
        # a work queue (completions unset): parallelism pods
        ({"parallelism": 4}, 4, "rank", "spec.parallelism"),
    ],
)
def test_a_job_runs_min_of_parallelism_and_completions_at_once(spec, count, role, count_from):
    found = contract(job(**spec)).pod_sets[0]
    assert (found.count, found.role, str(found.count_from)) == (count, role, count_from)
    assert found.gpus_per_pod == 8 and found.gpu_resources == ("nvidia.com/gpu",)


@pytest.mark.parametrize(
    "restart, spec, expected",
    [
        # Never: the Job controller replaces a failed pod alone up to backoffLimit (default 6), then fails the Job
        ("Never", {}, [("podController", "pod", 6), ("podController", "stop", 0)]),
        # OnFailure: the kubelet restarts in place first; restarts count toward backoffLimit
        (
            "OnFailure",
            {"backoffLimit": 2},
            [("kubelet", "inPlace", 2), ("podController", "pod", 2), ("podController", "stop", 0)],
        ),
        # backoffLimit 0: the first failed pod fails the Job
        ("Never", {"backoffLimit": 0}, [("podController", "stop", 0)]),
        # podFailurePolicy FailJob on every non-zero exit code acts before the backoff
        (
            "Never",
            {
                "podFailurePolicy": {
                    "rules": [{"action": "FailJob", "onExitCodes": {"operator": "NotIn", "values": [0]}}]
                }
            },
            [("podController", "stop", 0)],
        ),
        # backoffLimitPerIndex: each index retried alone, a failed index leaves the others running
        (
            "Never",
            {"completionMode": "Indexed", "completions": 4, "parallelism": 4, "backoffLimitPerIndex": 1},
            [("podController", "pod", 1), ("podController", "notReplaced", None)],
        ),
    ],
)
def test_the_failure_path_follows_restart_policy_backoff_and_pod_failure_policy(restart, spec, expected):
    assert steps(contract(job(restart=restart, **spec))) == expected


def test_a_job_with_fail_job_at_once_keeps_the_gang_whole_and_a_failed_job_stops_its_pods():
    found = contract(job(backoffLimit=0, parallelism=4, completions=4))
    assert found.on_rank_failure is not None and found.on_rank_failure.scope in GANG_SCOPES
    assert found.terminal.survivors_stop


@pytest.mark.parametrize(
    "labels, annotations, unit, by, minimum",
    [
        ({}, {}, "perPod", "none", None),
        # a queue label: Kueue admits the one PodSet whole (job_controller.go PodSets)
        (QUEUE, {}, "whole", "kueue", 8),
        # job-min-parallelism: partial admission down to the minimum (minPodsCount)
        (QUEUE, {"kueue.x-k8s.io/job-min-parallelism": "4"}, "partial", "kueue", 4),
        # elastic-job: workload slices (ElasticJobsViaWorkloadSlices)
        (QUEUE, {"kueue.x-k8s.io/elastic-job": "true"}, "elastic", "kueue", None),
    ],
)
def test_kueue_admits_a_labelled_job_whole_or_partially(labels, annotations, unit, by, minimum):
    found = contract(job(labels=labels, annotations=annotations, parallelism=8, completions=8)).admission
    assert (found.unit, found.by, found.minimum) == (unit, by, minimum)


@pytest.mark.parametrize(
    "scheduling, fleet, minimum, minimum_from",
    [
        # 1.37 spec.scheduling gang, minCount defaults to parallelism (syncGangMinCount)
        (
            GANG,
            NATIVE_FLEET,
            4,
            "spec.parallelism (kubernetes v1.37.2 pkg/controller/job/job_scheduling_manager.go syncGangMinCount)",
        ),
        (
            {"schedulingPolicy": {"gang": {"minCount": 2}}},
            NATIVE_FLEET,
            2,
            "spec.scheduling.schedulingPolicy.gang.minCount",
        ),
        # without a cluster running WorkloadWithJob the Job controller makes no group
        (GANG, None, None, None),
    ],
)
def test_the_native_gang_is_the_job_controllers_group(scheduling, fleet, minimum, minimum_from):
    found = contract(job(parallelism=4, completions=4, scheduling=scheduling), fleet=fleet)
    if minimum is None:
        assert found.groups == () and any("WorkloadWithJob" in n for n in found.notes)
        return
    group = found.groups[0]
    assert (group.backend, group.creator, group.minimum, str(group.minimum_from)) == (
        "native",
        "jobController",
        minimum,
        minimum_from,
    )
    assert found.admission.by == "native"


@pytest.mark.parametrize(
    "spec, criterion, count",
    [
        ({"completions": 3}, "completions pods succeed", 3),
        ({"completions": 3, "completionMode": "Indexed"}, "every index succeeds", 3),
        ({"parallelism": 3}, "any pod succeeds and every pod ends", 1),
        (
            {"successPolicy": {"rules": [{"succeededCount": 1}]}, "completionMode": "Indexed"},
            "successPolicy: the first matching rule",
            None,
        ),
    ],
)
def test_success_follows_completions_and_success_policy(spec, criterion, count):
    found = contract(job(**spec)).success
    assert (found.criterion, found.count) == (criterion, count)


def test_a_job_whose_pods_name_a_volcano_pod_group_in_the_input_takes_its_min_member():
    pg = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "team-a"},
        "spec": {"minMember": 3, "queue": "q"},
    }
    found = contract(
        job(parallelism=4, completions=4, template_meta={"annotations": {"scheduling.k8s.io/group-name": "g"}}), pg
    )
    group = found.groups[0]
    assert (group.backend, group.creator, group.minimum, group.queue) == ("volcano", "user", 3, "q")
    assert (found.admission.unit, found.admission.minimum) == ("partial", 3)


def test_a_cron_job_is_read_as_its_job_with_paths_under_the_job_template():
    inner = job(parallelism=4, completions=4, backoffLimit=0)
    cron = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": inner["metadata"],
        "spec": {"schedule": "@daily", "jobTemplate": {"spec": inner["spec"]}},
    }
    found = contract(cron)
    assert found.kind == "CronJob" and found.pod_sets[0].count == 4
    assert str(found.pod_sets[0].count_from) == "spec.jobTemplate.spec.parallelism"
    assert str(found.pod_sets[0].template_path) == "spec.jobTemplate.spec.template"
    assert str(found.rank_failures[0].steps[0].origin) == "spec.jobTemplate.spec.backoffLimit"


def test_a_1_36_shape_gang_needs_no_spec_scheduling_note():
    fleet = FleetContext(
        "f", (), (), kubernetes_minor=36
    )  # WorkloadWithJob off: no group, and no advice to add spec.scheduling
    found = contract(job(parallelism=4, completions=4, completionMode="Indexed"), fleet=fleet)
    assert found.groups == ()
    assert not any("spec.scheduling" in n for n in found.notes)
