"""GANG003: minResources must equal replicas x per-pod requests."""

from __future__ import annotations

import pytest

from gpufleet.rules import registry
from gpufleet.rules.api import Severity
from tests.rules import builders as b
from tests.rules.helpers import fixed, paths

CODE = "GANG003"
BASE = "spec.runPolicy.schedulingPolicy.minResources"


@pytest.mark.parametrize(
    "min_resources, expected",
    [
        ({"nvidia.com/gpu": "32", "cpu": "8"}, []),
        ({"nvidia.com/gpu": 32}, []),
        ({"nvidia.com/gpu": "16"}, [f"{BASE}[nvidia.com/gpu]"]),
        ({"cpu": "8"}, [BASE]),
        ({"nvidia.com/gpu": "32", "memory": "1Gi"}, [f"{BASE}[memory]"]),
        ({"nvidia.com/gpu": "lots"}, [f"{BASE}[nvidia.com/gpu]"]),
    ],
)
def test_min_resources_are_compared_with_the_sum_of_pod_requests(min_resources, expected):
    job = b.pytorch_job(workers=3, master=1, gpus=8, cpu="2", min_resources=min_resources)
    assert sorted(paths(CODE, job)) == sorted(expected)


def test_jobs_without_min_resources_or_with_a_partial_minimum_are_not_compared():
    assert paths(CODE, b.pytorch_job(workers=3, gpus=8)) == []
    assert paths(CODE, b.pytorch_job(workers=3, gpus=8, min_available=2, min_resources={"cpu": "1"})) == []


def test_the_rule_is_a_warning():
    assert registry.get(CODE).severity is Severity.WARNING


def test_remediation_writes_the_sums_and_drops_what_no_pod_requests():
    job = b.pytorch_job(workers=3, master=1, gpus=8, memory="16Gi", min_resources={"cpu": "8", "memory": "1Gi"})
    out = fixed(CODE, job)
    assert out["spec"]["runPolicy"]["schedulingPolicy"]["minResources"] == {"nvidia.com/gpu": "32", "memory": "64Gi"}
    assert paths(CODE, out) == []
