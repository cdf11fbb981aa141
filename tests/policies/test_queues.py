"""Workloads' queues are checked against the queues the same stack declares."""

from __future__ import annotations

import pytest

from gpufleet_policy import queues

from tests.policies.builders import batch_job, local_queue, volcano_job, volcano_queue

STACK = [local_queue("vision", "vision"), local_queue("research", "research"), volcano_queue("sim")]


def found(obj, stack=STACK):
    local, volcano = queues.declared(stack)
    check_local, check_volcano = queues.declares_any(stack)
    return [(v.path, v.message) for v in queues.violations(obj, local, volcano, check_local, check_volcano)]


def test_declared_queues_are_collected_by_namespace_and_name():
    assert queues.declared(STACK) == ({("vision", "vision"), ("research", "research")}, {"sim"})


@pytest.mark.parametrize("obj", [
    batch_job(namespace="vision", queue="vision"),
    batch_job(namespace="vision", queue=None),
    volcano_job(queue="sim"),
    volcano_job(queue="default"),
    volcano_job(queue=None),
], ids=["declared-local-queue", "no-queue-label", "declared-volcano-queue", "volcano-default-queue", "no-volcano-queue"])
def test_a_workload_naming_a_declared_queue_passes(obj):
    assert found(obj) == []


def test_a_queue_label_naming_a_local_queue_of_another_namespace_is_flagged_at_the_label():
    ((path, message),) = found(batch_job(namespace="vision", queue="research"))
    assert path == "metadata.labels[kueue.x-k8s.io/queue-name]"
    assert "'research' is not declared in namespace 'vision'" in message and "declared there: vision" in message


def test_an_undeclared_volcano_queue_is_flagged_at_spec_queue():
    ((path, message),) = found(volcano_job(queue="research"))
    assert path == "spec.queue" and "'research'" in message


def test_a_stack_that_declares_no_queues_of_a_kind_does_not_check_that_kind():
    assert found(batch_job(queue="anything"), stack=[volcano_queue("sim")]) == []
    assert found(volcano_job(queue="anything"), stack=[local_queue("a", "a")]) == []
