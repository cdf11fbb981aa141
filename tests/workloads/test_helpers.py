"""Helpers of gpufleet.workloads: group membership, pod requests, Volcano policies."""

from __future__ import annotations

from decimal import Decimal

import pytest

from gpufleet.workloads import groups, resources, volcano
from tests.rules import builders as b


def test_group_members_are_indexed_once_per_run_by_namespace_and_name():
    run = (b.deployment("a", replicas=3, group="pg"), b.pod("p", group="pg"), b.pod("q", group="pg", namespace="x"),
           b.pod_group("pg"))
    assert groups.member_pods(run, "research", "pg") == 4
    assert groups.member_pods(run, "x", "pg") == 1
    assert groups.member_pods(run, "research", "other") == 0
    assert groups.index(run) is groups.index(run)
    assert groups.run_views(run) is groups.run_views(run) and groups.run_views(run)[3].kind == "PodGroup"


def test_a_new_run_gets_a_new_index():
    first = (b.pod("p", group="pg"),)
    second = (b.pod("p", group="pg"), b.pod("q", group="pg"))
    assert groups.member_pods(first, "research", "pg") == 1
    assert groups.member_pods(second, "research", "pg") == 2


@pytest.mark.parametrize("spec, expected", [
    ({"containers": [{"resources": {"requests": {"cpu": "500m"}, "limits": {"cpu": "1", "nvidia.com/gpu": 8}}}]},
     {"cpu": Decimal("0.5"), "nvidia.com/gpu": Decimal(8)}),
    ({"containers": [{"resources": {"requests": {"cpu": "1"}}}, {"resources": {"requests": {"cpu": "2"}}}],
      "initContainers": [{"resources": {"requests": {"cpu": "4", "memory": "1Gi"}}}]},
     {"cpu": Decimal(4), "memory": Decimal(2**30)}),
    ({"containers": [{"resources": {"requests": {"cpu": "lots"}}}]}, {}),
    ({}, {}),
])
def test_pod_requests_sum_containers_and_take_the_largest_init_container(spec, expected):
    assert resources.pod_requests(spec) == expected


def test_task_policies_override_job_policies_for_the_same_event():
    job = b.volcano_job(policies=[b.policy("*", "RestartJob")],
                        tasks=[b.task("m", policies=[b.policy("PodFailed", "AbortJob")]), b.task()])
    assert volcano.effective_policy(job, 0, "PodFailed").action == "AbortJob"
    assert volcano.effective_policy(job, 0, "PodEvicted").path == "spec.policies[0]"
    assert volcano.effective_policy(job, 1, "PodFailed").path == "spec.policies[0]"
    assert volcano.effective_policy(b.volcano_job(policies=[]), 0, "PodFailed") is None


def test_policies_read_event_events_and_exit_codes():
    job = b.volcano_job(policies=[{"events": ["PodFailed", "Unknown"], "action": "RestartJob"},
                                  {"exitCode": 3, "action": "RestartPod"}])
    first, second = volcano.all_policies(job)
    assert first.events == ("PodFailed", "Unknown") and first.covers("Unknown") and not first.covers("PodEvicted")
    assert (second.exit_code, second.events, second.task) == (3, (), None)
