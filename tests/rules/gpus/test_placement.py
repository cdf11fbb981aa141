"""The capacity rules count only the pools of the system that will place a workload."""

from __future__ import annotations

import pytest

from gpufleet import workloads
from gpufleet.rules.demands import candidate_pools
from gpufleet.rules.placement import placing_system
from tests.rules import builders as b
from tests.rules.helpers import FLEET

QUEUE = {"kueue.x-k8s.io/queue-name": "research"}


@pytest.mark.parametrize(
    "obj, expected",
    [
        (b.volcano_job(), "volcano"),
        (b.pod_group(flavor="volcano"), "volcano"),
        (b.batch_job(scheduler_name="volcano"), "volcano"),
        (b.batch_job(scheduler_name="scheduler-plugins-scheduler"), "coscheduling"),
        (b.batch_job(labels=QUEUE), "kueue"),
        (b.batch_job(namespace="sim"), "volcano"),  # the team's only queue is Volcano's
        (b.batch_job(namespace="vision"), "kueue"),  # the team's only queue is a LocalQueue
        (b.batch_job(namespace="research"), None),  # both: nothing says which
        (b.batch_job(namespace="scratch"), None),  # no team
    ],
)
def test_the_placing_system_comes_from_the_kind_scheduler_queue_label_then_the_team(obj, expected):
    assert placing_system(workloads.build_view(obj), FLEET) == expected


@pytest.mark.parametrize(
    "system, namespace, expected",
    [
        ("volcano", "vision", ["h100"]),  # the team's l4 is Kueue's: Volcano's pools instead
        ("kueue", "research", ["l4"]),  # the team's h100 is Volcano's
        ("kueue", "vision", ["l4"]),
        (None, "research", ["h100"]),
    ],
)
def test_candidate_pools_are_the_placing_systems_pools(system, namespace, expected):
    pools, _ = candidate_pools({}, namespace, FLEET, system)
    assert [p.name for p in pools] == expected


def test_a_node_selector_naming_another_systems_pool_is_ignored_for_the_placing_systems_own():
    pools, _ = candidate_pools({"nodeSelector": {"gpufleet.dev/pool": "l4"}}, "research", FLEET, "volcano")
    assert [p.name for p in pools] == ["h100"]
