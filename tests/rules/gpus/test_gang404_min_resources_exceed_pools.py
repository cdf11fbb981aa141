"""GANG404: a PodGroup's minResources must fit what its queue's pools hold in total."""

from __future__ import annotations

import pytest

from tests.rules import builders as b
from tests.rules.helpers import WITH_FLEET, paths

CODE = "GANG404"
GPU = "spec.minResources[nvidia.com/gpu]"


@pytest.mark.parametrize(
    "group, expected",
    [
        (b.pod_group(queue="research", min_resources={"nvidia.com/gpu": "32"}), []),
        (b.pod_group(queue="research", min_resources={"nvidia.com/gpu": "33"}), [GPU]),
        (b.pod_group(queue="research", min_resources={"nvidia.com/gpu": "not-a-quantity"}), []),
        (b.pod_group(flavor="coscheduling", namespace="robotics", min_resources={"nvidia.com/gpu": "16"}), []),
        (b.pod_group(flavor="coscheduling", namespace="robotics", min_resources={"nvidia.com/gpu": "20"}), [GPU]),
        (b.pod_group(queue="research", min_resources={"amd.com/gpu": "1"}), ["spec.minResources[amd.com/gpu]"]),
    ],
)
def test_min_resources_above_the_pools_total_is_reported(group, expected):
    assert paths(CODE, group, WITH_FLEET) == expected


def test_without_a_fleet_the_pools_are_unknown():
    assert paths(CODE, b.pod_group(queue="research", min_resources={"nvidia.com/gpu": "999"})) == []
