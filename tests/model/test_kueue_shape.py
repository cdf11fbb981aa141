"""Kueue's resource-group limits on the rendered queues."""

from __future__ import annotations

import pytest

from tests.model.builders import FleetBuilder
from tests.model.expect import Case, clean, params, reported


def _extra_resources(n: int):
    return lambda f: f.set(
        "pools[0].allocatable",
        {"nvidia.com/gpu": 8, "cpu": 96, "memory": "768Gi"} | {f"example.com/r{i}": 8 for i in range(n)},
    )


def _kueue_pools(n: int, resources: int = 0):
    """n more Kueue pools of one node, each with the given number of extra resources; team alpha has quota on all."""

    def edit(f: FleetBuilder) -> FleetBuilder:
        extra = {f"example.com/r{i}": 1 for i in range(resources)}
        for i in range(n):
            f.with_pool(f"p{i}", nodes=1, allocatable={"nvidia.com/gpu": 8, "cpu": 96, "memory": "768Gi"} | extra)
            f.set(f"teams[0].quota.p{i}", {"nominal": 0})
        return f

    return edit


CASES = [
    Case(
        "sixty-five-covered-resources",
        _extra_resources(62),
        _extra_resources(61),
        "pools[0].allocatable",
        "65 distinct resources",
    ),
    Case("sixty-five-flavors", _kueue_pools(64), _kueue_pools(63), "teams[0].quota", "at most 64 flavors"),
    Case("more-than-512-pairs", _kueue_pools(8, 56), _kueue_pools(7, 56), "teams[0].quota", "531 pairs"),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_queue_beyond_kueue_limits_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_a_queue_within_kueue_limits_passes(case: Case) -> None:
    clean(case)
