"""GANG401: GPU requests and limits as the API server validates them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


@pytest.mark.parametrize(
    "requests, limits, expected",
    [
        (None, {"nvidia.com/gpu": 8}, []),
        ({"nvidia.com/gpu": "8"}, {"nvidia.com/gpu": 8}, []),
        ({"nvidia.com/gpu": 8}, None, ["requests[nvidia.com/gpu]"]),
        ({"nvidia.com/gpu": 4}, {"nvidia.com/gpu": 8}, ["requests[nvidia.com/gpu]"]),
        (None, {"amd.com/gpu": "0.5"}, ["limits[amd.com/gpu]"]),
        (None, {"nvidia.com/mig-1g.10gb": "lots"}, ["limits[nvidia.com/mig-1g.10gb]"]),
        ({"cpu": "1"}, {"cpu": "2"}, []),
    ],
)
def test_gpu_requests_must_equal_limits_and_be_whole(requests, limits, expected):
    assert gang401(with_resources(requests, limits)) == expected


def test_the_fleets_own_gpu_resource_counts_as_a_gpu():
    fleet = FleetContext.from_dict(
        {
            "pools": [
                {
                    "name": "tpu",
                    "system": "kueue",
                    "nodeCount": 1,
                    "gpuResource": "example.com/accel",
                    "allocatable": {},
                }
            ]
        }
    )
    job = with_resources({"example.com/accel": 2}, None)
    assert gang401(job) == []
    assert gang401(job, CheckContext(fleet=fleet)) == ["requests[example.com/accel]"]


_keys = st.sampled_from(["nvidia.com/gpu", "amd.com/gpu", "nvidia.com/mig-1g.5gb", "cpu", "memory", 7])
_values = st.one_of(
    st.sampled_from(["8", "08", "1.5", "-1", "bad", "0", "2e1", "1000m"]), st.integers(-2, 9), st.none()
)
_maps = st.dictionaries(_keys, _values, max_size=4)


@settings(max_examples=400, deadline=None)
@given(st.fixed_dictionaries({}, optional={"requests": _maps, "limits": _maps}), st.booleans())
def test_a_container_skipped_as_clean_has_nothing_to_report(resources, twice):
    from gpufleet.kubetypes.fieldpath import ROOT
    from gpufleet.rules.gpumath import gpu_resources
    from gpufleet.rules.gpus.gang401_gpu_request_limit_mismatch import _clean, _container

    if twice and "requests" in resources:
        resources = {**resources, "limits": dict(resources["requests"])}  # the usual form: the same map twice
    container, gpus = {"name": "c", "resources": resources}, gpu_resources(None)
    if _clean(container, gpus):
        assert list(_container(ROOT, container, gpus)) == []
