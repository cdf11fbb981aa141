"""GANG401: GPU requests and limits as the API server validates them."""

from __future__ import annotations

import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.rules import builders as b


def with_resources(requests: dict | None, limits: dict | None) -> dict:
    job = b.volcano_job()
    container = job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]
    container["resources"] = {k: v for k, v in (("requests", requests), ("limits", limits)) if v is not None}
    return job


def gang401(obj: dict, ctx: CheckContext = CheckContext()) -> list[str]:
    base = "spec.tasks[0].template.spec.containers[0].resources."
    return [str(f.path).removeprefix(base) for f in engine.check_object(obj, ctx, select=["GANG401"])]


@pytest.mark.parametrize("requests, limits, expected", [
    (None, {"nvidia.com/gpu": 8}, []),
    ({"nvidia.com/gpu": "8"}, {"nvidia.com/gpu": 8}, []),
    ({"nvidia.com/gpu": 8}, None, ["requests[nvidia.com/gpu]"]),
    ({"nvidia.com/gpu": 4}, {"nvidia.com/gpu": 8}, ["requests[nvidia.com/gpu]"]),
    (None, {"amd.com/gpu": "0.5"}, ["limits[amd.com/gpu]"]),
    (None, {"nvidia.com/mig-1g.10gb": "lots"}, ["limits[nvidia.com/mig-1g.10gb]"]),
    ({"cpu": "1"}, {"cpu": "2"}, []),
])
def test_gpu_requests_must_equal_limits_and_be_whole(requests, limits, expected):
    assert gang401(with_resources(requests, limits)) == expected


def test_the_fleets_own_gpu_resource_counts_as_a_gpu():
    fleet = FleetContext.from_dict({"pools": [
        {"name": "tpu", "system": "kueue", "nodeCount": 1, "gpuResource": "example.com/accel", "allocatable": {}}]})
    job = with_resources({"example.com/accel": 2}, None)
    assert gang401(job) == []
    assert gang401(job, CheckContext(fleet=fleet)) == ["requests[example.com/accel]"]
