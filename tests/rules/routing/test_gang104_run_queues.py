"""GANG104's stack-level hook: without a fleet, workloads' queues against the queues the same run declares."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from gpufleet.rules.routing import gang104_undeclared_queue as gang104
from tests.policies.builders import batch_job, local_queue, volcano_job, volcano_queue
from tests.rules.fleets import fleet

STACK = [local_queue("vision", "vision"), local_queue("research", "research"), volcano_queue("sim")]


def found(obj, stack=STACK, context=None):
    run = CheckContext(fleet=context, objects=(*stack, obj))
    return [(f.path, f.message) for o, f in engine.check_run(run, select=["GANG104"]) if o is obj]


def test_declared_queues_are_collected_by_namespace_and_name():
    assert gang104.declared(STACK) == ({("vision", "vision"), ("research", "research")}, {"sim"})


def test_with_a_fleet_context_the_hook_leaves_queues_to_the_fleet_model():
    assert found(batch_job(namespace="vision", queue="research")) != []
    assert found(batch_job(namespace="vision", queue="research"), context=fleet()) == []


def test_check_objects_reports_the_hook_findings_on_the_object_among_its_own():
    job = batch_job(namespace="vision", queue="nope")
    codes = [f.code for f in engine.check_objects([*STACK, job], select=["GANG104"])]
    assert codes == ["GANG104"]


@pytest.mark.parametrize(
    "obj",
    [
        batch_job(namespace="vision", queue="vision"),
        batch_job(namespace="vision", queue=None),
        volcano_job(queue="sim"),
        volcano_job(queue="default"),
        volcano_job(queue=None),
    ],
    ids=[
        "declared-local-queue",
        "no-queue-label",
        "declared-volcano-queue",
        "volcano-default-queue",
        "no-volcano-queue",
    ],
)
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
