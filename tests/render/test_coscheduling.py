"""The coscheduling plugin: chart values, the scheduler config the chart makes of them, and PodGroups."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.advise.podgroups import render_pod_groups
from gpufleet.crdschema import CrdSet
from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.render.coscheduling import render_scheduler_config
from tests.model.builders import FleetBuilder
from tests.rules.builders import batch_job

MIXED = load_model(Path(__file__).resolve().parents[2] / "stacks" / "mixed.fleet.yaml")


def job(name: str, namespace: str, pods: int, **annotations: str) -> dict:
    return batch_job(name, pods, namespace=namespace, annotations=annotations)


def jobset(name: str, namespace: str, *replicas: int) -> dict:
    jobs = [
        {
            "name": f"r{i}",
            "replicas": n,
            "template": {
                "spec": {
                    "parallelism": 2,
                    "completions": 2,
                    "template": {
                        "metadata": {"labels": {"scheduling.x-k8s.io/pod-group": "shared-group"}},
                        "spec": {"restartPolicy": "Never", "containers": [{"name": "w", "image": "t:1"}]},
                    },
                }
            },
        }
        for i, n in enumerate(replicas)
    ]
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"replicatedJobs": jobs},
    }


def test_the_chart_values_keep_the_permit_wait_short_and_reject_a_gang_missing_any_pod_at_once() -> None:
    values = render_all(MIXED).coscheduling_values
    assert values == {
        "scheduler": {"name": "scheduler-plugins-scheduler"},
        "plugins": {"enabled": ["Coscheduling"], "disabled": ["PrioritySort"]},
        "pluginConfig": [
            {"name": "Coscheduling", "args": {"permitWaitingTimeSeconds": 60, "podGroupRejectPercentage": 0}}
        ],
    }


def test_the_permit_wait_is_the_engines_setting_not_a_pools_cold_start_budget() -> None:
    fleet = load_model_with(permitWait="45s")
    assert render_all(fleet).coscheduling_values["pluginConfig"][0]["args"]["permitWaitingTimeSeconds"] == 45
    [group] = render_pod_groups(fleet, [job("t", "solo", 2)])
    assert group["spec"]["scheduleTimeoutSeconds"] == 45


def test_a_fleet_without_a_coscheduling_pool_renders_no_chart_values() -> None:
    assert render_all(FleetBuilder().model()).coscheduling_values is None


def test_the_scheduler_profile_is_named_after_the_engine_setting() -> None:
    fleet = load_model_with(schedulerName="gang-cosched")
    profile = render_scheduler_config(fleet)["profiles"][0]
    assert profile["schedulerName"] == "gang-cosched"


def load_model_with(**engine: str):
    b = (
        FleetBuilder()
        .with_pool("l40s", "coscheduling", coldStartBudget="4m")
        .with_team("solo", quota={"l40s": {"nominal": 8}})
    )
    return b.set("engines.coscheduling", engine).model()


@pytest.mark.parametrize(
    "workload, expected",
    [
        pytest.param(job("train", "robotics", 4), ("train", 4, 60), id="job: every pod, the permit wait"),
        pytest.param(
            jobset("js", "robotics", 2, 1), ("shared-group", 6, 60), id="jobset: the labelled group, all its pods"
        ),
        pytest.param(
            job("el", "robotics", 4, **{"gpufleet.dev/elastic": "true"}),
            ("el", 4, 60),
            id="elastic without a minimum: every pod",
        ),
    ],
)
def test_a_gang_in_a_coscheduling_namespace_gets_a_pod_group_of_all_its_pods(workload, expected) -> None:
    [group] = render_pod_groups(MIXED, [workload])
    assert (group["metadata"]["name"], group["spec"]["minMember"], group["spec"]["scheduleTimeoutSeconds"]) == expected
    assert (
        group["metadata"]["namespace"] == "robotics" and group["metadata"]["labels"]["gpufleet.dev/team"] == "robotics"
    )


@pytest.mark.parametrize(
    "workload",
    [
        pytest.param(job("train", "llm", 8), id="a Kueue team's namespace"),
        pytest.param(job("single", "robotics", 1), id="a single pod is no gang"),
        pytest.param(job("ghost", "nowhere", 4), id="no team's namespace"),
    ],
)
def test_workloads_outside_a_coscheduling_gang_get_no_pod_group(workload) -> None:
    assert render_pod_groups(MIXED, [workload]) == []


def test_a_pool_without_a_budget_waits_the_same_short_permit_wait() -> None:
    fleet = FleetBuilder().with_pool("l40s", "coscheduling").with_team("solo", quota={"l40s": {"nominal": 8}}).model()
    [group] = render_pod_groups(fleet, [job("t", "solo", 2)])
    assert group["spec"]["scheduleTimeoutSeconds"] == 60


def test_rendered_pod_groups_are_valid_against_the_real_crd(crds_dir) -> None:
    crds = CrdSet.load(crds_dir)
    for group in render_pod_groups(MIXED, [job("train", "robotics", 4), jobset("js", "robotics", 2)]):
        assert crds.knows(group)
        assert crds.validate(group) + crds.pruned_fields(group) == []


def test_the_admission_webhooks_leave_the_second_schedulers_namespace_alone() -> None:
    from gpufleet.render.controller import ControllerSettings, render_controller

    manifests = render_controller(MIXED, ControllerSettings(image="x"))
    for hook in manifests["validatingwebhookconfiguration"]["webhooks"]:
        [excluded] = [
            e["values"]
            for e in hook["namespaceSelector"]["matchExpressions"]
            if e["key"] == "kubernetes.io/metadata.name" and e["operator"] == "NotIn"
        ]
        assert "scheduler-plugins" in excluded
