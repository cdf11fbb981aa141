"""GANG104: queues must be the ones the fleet model declares for the namespace's team."""

from __future__ import annotations

import pytest

from tests.rules import builders as b
from tests.rules.helpers import WITH_FLEET, paths

CODE = "GANG104"
LABEL = "metadata.labels[kueue.x-k8s.io/queue-name]"


def labelled(queue, namespace="research"):
    return b.jobset(namespace=namespace, labels={"kueue.x-k8s.io/queue-name": queue})


@pytest.mark.parametrize("obj, expected", [
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
])
def test_a_queue_the_model_does_not_give_the_namespace_is_flagged(obj, expected):
    assert paths(CODE, obj, WITH_FLEET) == expected


def test_the_rule_needs_a_fleet_context():
    assert paths(CODE, labelled("reserch")) == []
