"""GANG104: queues must be the ones the fleet model declares for the namespace's team."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpufleet.rules.api import CheckContext
from tests.rules import builders as b
from tests.rules.helpers import WITH_FLEET, paths

CODE = "GANG104"
LABEL = "metadata.labels[kueue.x-k8s.io/queue-name]"


def labelled(queue, namespace="research"):
    return b.jobset(namespace=namespace, labels={"kueue.x-k8s.io/queue-name": queue})


@pytest.mark.parametrize(
    "obj, expected",
    [
        (labelled("research"), []),
        (labelled("reserch"), [LABEL]),
        (labelled("research", namespace="vision"), [LABEL]),
        (labelled("vision", namespace=None), []),
        (labelled("nowhere", namespace=None), [LABEL]),
        (b.volcano_job(queue="research"), []),
        (b.volcano_job(queue="default"), ["spec.queue"]),
        (b.volcano_job(queue="sim"), ["spec.queue"]),
        (b.volcano_job(queue="sim", namespace="scratch"), []),
        (b.pod_group(queue="ghost"), ["spec.queue"]),
        (b.pytorch_job(namespace="vision", queue="research"), ["spec.runPolicy.schedulingPolicy.queue"]),
    ],
)
def test_a_queue_the_model_does_not_give_the_namespace_is_flagged(obj, expected):
    assert paths(CODE, obj, WITH_FLEET) == expected


def test_the_rule_needs_a_fleet_context():
    assert paths(CODE, labelled("reserch")) == []


def messages(obj, ctx):
    from gpufleet.rules import engine

    return [f.message for f in engine.check_object(obj, ctx, select=[CODE])]


MANAGED = CheckContext(fleet=replace(WITH_FLEET.fleet, kueue_managed_namespaces=("research", "vision")))


def test_an_undeclared_queue_in_a_namespace_kueue_manages_leaves_the_job_pending_forever():
    assert [m for m in messages(labelled("reserch"), MANAGED) if "pending forever" in m]


def test_a_queue_label_where_kueue_does_not_manage_the_namespace_says_kueue_ignores_it_not_that_it_hangs():
    # differential tier, gen:2:1 and the Kueue example sample-job-partial-admission: in a namespace outside
    # managedJobsNamespaceSelector Kueue's job webhook is never called, and the real engines ran the Job whole
    found = messages(labelled("no-such-queue", namespace="scratch"), MANAGED)
    assert found and all("pending forever" not in m and "ignores" in m for m in found), found
