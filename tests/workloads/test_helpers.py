"""Helpers of gpufleet.workloads: group membership, pod requests, Volcano policies."""

from __future__ import annotations

from decimal import Decimal

import pytest

from gpufleet.workloads import resources, volcano
from tests.rules import builders as b


@pytest.mark.parametrize(
    "spec, expected",
    [
        (
            {"containers": [{"resources": {"requests": {"cpu": "500m"}, "limits": {"cpu": "1", "nvidia.com/gpu": 8}}}]},
            {"cpu": Decimal("0.5"), "nvidia.com/gpu": Decimal(8)},
        ),
        (
            {
                "containers": [{"resources": {"requests": {"cpu": "1"}}}, {"resources": {"requests": {"cpu": "2"}}}],
                "initContainers": [{"resources": {"requests": {"cpu": "4", "memory": "1Gi"}}}],
            },
            {"cpu": Decimal(4), "memory": Decimal(2**30)},
        ),
        ({"containers": [{"resources": {"requests": {"cpu": "lots"}}}]}, {}),
        ({}, {}),
    ],
)
def test_pod_requests_sum_containers_and_take_the_largest_init_container(spec, expected):
    assert resources.pod_requests(spec) == expected


def test_task_policies_override_job_policies_for_the_same_event():
    job = b.volcano_job(
        policies=[b.policy("*", "RestartJob")],
        tasks=[b.task("m", policies=[b.policy("PodFailed", "AbortJob")]), b.task()],
    )
    assert volcano.effective_policy(job, 0, "PodFailed").action == "AbortJob"
    assert volcano.effective_policy(job, 0, "PodEvicted").path == "spec.policies[0]"
    assert volcano.effective_policy(job, 1, "PodFailed").path == "spec.policies[0]"
    assert volcano.effective_policy(b.volcano_job(policies=[]), 0, "PodFailed") is None


def test_policies_read_event_events_and_exit_codes():
    job = b.volcano_job(
        policies=[{"events": ["PodFailed", "Unknown"], "action": "RestartJob"}, {"exitCode": 3, "action": "RestartPod"}]
    )
    first, second = volcano.all_policies(job)
    assert first.events == ("PodFailed", "Unknown") and first.covers("Unknown") and not first.covers("PodEvicted")
    assert (second.exit_code, second.events, second.task) == (3, (), None)


JOB_POLICY_CASES = [
    ([], [b.task("a"), b.task("b")]),
    ([b.policy("PodFailed", "RestartJob")], [b.task("a"), b.task("b", policies=[b.policy("PodEvicted", "AbortJob")])]),
    ([b.policy("*", "RestartJob")], [b.task("a")]),
    (
        [],
        [
            b.task("a", policies=[b.policy("*", "RestartJob")]),
            b.task("b", policies=[b.policy("PodEvicted", "RestartPod")]),
        ],
    ),
    (
        [b.policy("PodEvicted", "RestartJob")],
        [b.task("a", policies=[b.policy("PodFailed", "RestartTask")]), b.task("b")],
    ),
]


@pytest.mark.parametrize("job_policies, tasks", JOB_POLICY_CASES)
def test_uncovered_events_are_exactly_those_some_task_has_no_effective_policy_for(job_policies, tasks):
    job = b.volcano_job(tasks=tasks, policies=job_policies)
    events = ["PodFailed", "PodEvicted", "Unknown"]
    by_definition = [e for e in events if any(volcano.effective_policy(job, i, e) is None for i in range(len(tasks)))]
    assert volcano.uncovered_events(job, events) == by_definition


@pytest.mark.parametrize("job_policies, tasks", JOB_POLICY_CASES)
def test_all_policies_filtered_by_action_keep_their_order(job_policies, tasks):
    job = b.volcano_job(tasks=tasks, policies=job_policies)
    wanted = {"RestartJob", "RestartPod"}
    assert list(volcano.all_policies(job, wanted)) == [p for p in volcano.all_policies(job) if p.action in wanted]


@pytest.mark.parametrize(
    "spec, expected",
    [
        # A sidecar runs beside the containers and before every later init container (KEP-753).
        (
            {
                "containers": [{"resources": {"requests": {"cpu": "2"}}}],
                "initContainers": [{"restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}}],
            },
            Decimal(3),
        ),
        (
            {
                "containers": [{"resources": {"requests": {"cpu": "1"}}}],
                "initContainers": [
                    {"restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
                    {"resources": {"requests": {"cpu": "1500m"}}},
                ],
            },
            Decimal("2.5"),
        ),
        # An init container before the sidecar starts alone.
        (
            {
                "containers": [{"resources": {"requests": {"cpu": "1"}}}],
                "initContainers": [
                    {"resources": {"requests": {"cpu": "3"}}},
                    {"restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
                ],
            },
            Decimal(3),
        ),
        # The RuntimeClass's overhead is added to the pod.
        ({"containers": [{"resources": {"requests": {"cpu": "1"}}}], "overhead": {"cpu": "250m"}}, Decimal("1.25")),
    ],
)
def test_pod_requests_count_sidecars_and_overhead_as_the_scheduler_kueue_and_volcano_do(spec, expected):
    assert resources.pod_requests(spec)["cpu"] == expected
    assert resources.pod_requests(spec, ["cpu", "nvidia.com/gpu"]) == {"cpu": expected, "nvidia.com/gpu": 0}
