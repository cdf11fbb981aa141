"""AnalyzeStack, over gRPC: chart values, declared queues and related objects, reported against the right URN."""

from __future__ import annotations

import pytest

from tests.policies.builders import (
    batch_job,
    kueue_chart_props,
    kueue_config_yaml,
    local_queue,
    priority_class,
    volcano_chart_props,
    volcano_job,
    volcano_queue,
)
from tests.policies.harness import Resource

GOOD_VOLCANO_CONF = """actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
"""


def chart(name, props):
    return Resource("kubernetes:helm.sh/v4:Chart", name, props)


def violations(diagnostics, mandatory_only=False):
    return sorted(
        (d.policy, d.urn.rsplit("::", 1)[1], pair)
        for d in diagnostics
        for pair in d.violations
        if d.level == "mandatory" or not mandatory_only
    )


@pytest.mark.parametrize(
    "config_yaml, expected",
    [
        (
            kueue_config_yaml(enabled=False),
            [
                (
                    "gang501-wait-for-pods-ready-disabled-stack",
                    "kueue",
                    ("GANG501", "values.managerConfig.controllerManagerConfigYaml.waitForPodsReady.enable"),
                )
            ],
        ),
        (
            kueue_config_yaml("2m"),
            [
                (
                    "gang502-wait-for-pods-ready-timeout-below-floor-stack",
                    "kueue",
                    ("GANG502", "values.managerConfig.controllerManagerConfigYaml.waitForPodsReady.timeout"),
                )
            ],
        ),
        (
            kueue_config_yaml("15m", backoff_limit=None),
            [
                (
                    "gang503-no-requeue-backoff-limit-stack",
                    "kueue",
                    ("GANG503", "values.managerConfig.controllerManagerConfigYaml.waitForPodsReady"),
                )
            ],
        ),
        (kueue_config_yaml("15m"), []),
    ],
    ids=["wait-disabled", "timeout-below-floor", "no-backoff-limit", "gang-safe"],
)
def test_the_kueue_charts_manager_configuration_is_checked_at_its_values_path(pack, config_yaml, expected):
    assert violations(pack.analyze_stack([chart("kueue", kueue_chart_props(config_yaml))])) == expected


def test_the_volcano_charts_scheduler_conf_is_checked(pack):
    bad = GOOD_VOLCANO_CONF.replace('"enqueue, allocate, backfill"', '"enqueue, allocate, preempt, backfill"')
    assert violations(pack.analyze_stack([chart("volcano", volcano_chart_props(bad))])) == [
        (
            "gang505-preemption-without-gang-protection-stack",
            "volcano",
            ("GANG505", "values.custom.scheduler_config_override.tiers[0].plugins[1].enablePreemptable"),
        )
    ]
    assert violations(pack.analyze_stack([chart("volcano", volcano_chart_props(GOOD_VOLCANO_CONF))])) == []


def test_workload_queues_are_checked_against_the_queues_the_stack_declares(pack):
    stack = [
        Resource.of(local_queue("vision", "vision")),
        Resource.of(volcano_queue("sim")),
        Resource.of(batch_job(namespace="vision", queue="vision")),
        Resource.of(batch_job("other", namespace="vision", queue="research")),
        Resource.of(volcano_job(queue="sim")),
        Resource.of(volcano_job("lost", queue="nowhere")),
    ]
    assert violations(pack.analyze_stack(stack)) == [
        ("gang104-undeclared-queue-stack", "research-lost", ("GANG104", "spec.queue")),
        ("gang104-undeclared-queue-stack", "vision-other", ("GANG104", "metadata.labels[kueue.x-k8s.io/queue-name]")),
    ]


def test_a_priority_class_is_flagged_once_another_resource_shows_gang_workloads_use_it(pack):
    stack = [Resource.of(priority_class("gang-high")), Resource.of(volcano_job(priorityClassName="gang-high"))]
    assert [d for r in stack for d in pack.analyze(r) if d.policy.startswith("gang504")] == []  # alone: unknowable
    assert violations(pack.analyze_stack(stack)) == [
        ("gang504-per-pod-preemption-priority-class-stack", "gang-high", ("GANG504", "preemptionPolicy"))
    ]
