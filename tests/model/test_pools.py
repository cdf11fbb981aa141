"""Pool syntax: labels, taints, tolerations, Kueue's counts, the quota resource."""

from __future__ import annotations

import pytest

from tests.model.expect import Case, clean, params, reported

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
NINE_LABELS = {f"example.com/l{i}": "x" for i in range(8)} | {"gpufleet.dev/pool": "h100"}

CASES = [
    Case(
        "label-key-with-two-slashes",
        lambda f: f.set('pools[0].nodeLabels["a/b/c"]', "x"),
        lambda f: f.set('pools[0].nodeLabels["a.b/c"]', "x"),
        "pools[0].nodeLabels.a/b/c",
        "more than one '/'",
    ),
    Case(
        "label-key-uppercase-prefix",
        lambda f: f.set('pools[0].nodeLabels["Example.com/zone"]', "a"),
        lambda f: f.set('pools[0].nodeLabels["example.com/Zone"]', "a"),
        "pools[0].nodeLabels.Example.com/zone",
        "not a DNS subdomain",
    ),
    Case(
        "label-key-name-too-long",
        lambda f: f.set(f'pools[0].nodeLabels["{"k" * 64}"]', "a"),
        lambda f: f.set(f'pools[0].nodeLabels["{"k" * 63}"]', "a"),
        f"pools[0].nodeLabels.{'k' * 64}",
        "longer than 63",
    ),
    Case(
        "label-value-too-long",
        lambda f: f.set('pools[0].nodeLabels["example.com/zone"]', "v" * 64),
        lambda f: f.set('pools[0].nodeLabels["example.com/zone"]', "v" * 63),
        "pools[0].nodeLabels.example.com/zone",
        "longer than 63",
    ),
    Case(
        "label-value-with-space",
        lambda f: f.set('pools[1].nodeLabels["example.com/zone"]', "eu west"),
        lambda f: f.set('pools[1].nodeLabels["example.com/zone"]', "eu-west"),
        "pools[1].nodeLabels.example.com/zone",
        "start and end alphanumeric",
    ),
    Case(
        "taint-key-invalid",
        lambda f: f.set("pools[0].taints[0].key", "nvidia.com/gpu/"),
        lambda f: f.set("pools[0].taints[0].key", "nvidia.com/gpu-present"),
        "pools[0].taints[0].key",
        "taint key",
    ),
    Case(
        "taint-value-invalid",
        lambda f: f.set("pools[0].taints[0].value", "-present"),
        lambda f: f.set("pools[0].taints[0].value", "present-1"),
        "pools[0].taints[0].value",
        "taint value",
    ),
    Case(
        "two-taints-same-key-and-effect",
        lambda f: f.append("pools[0].taints", GPU_TAINT | {"value": "other"}),
        lambda f: f.append("pools[0].taints", GPU_TAINT | {"effect": "NoExecute"}),
        "pools[0].taints[1].effect",
        "already has key",
    ),
    Case(
        "keyless-toleration-with-equal",
        lambda f: f.set("pools[0].tolerations", [{"operator": "Equal"}]),
        lambda f: f.set("pools[0].tolerations", [{"operator": "Exists"}]),
        "pools[0].tolerations[0].operator",
        "must use operator Exists",
    ),
    Case(
        "exists-toleration-with-value",
        lambda f: f.set("pools[0].tolerations[0].value", "present"),
        lambda f: f.set("pools[0].tolerations[0].operator", "Equal").set("pools[0].tolerations[0].value", "present"),
        "pools[0].tolerations[0].value",
        "takes no value",
    ),
    Case(
        "toleration-seconds-without-noexecute",
        lambda f: f.set("pools[0].tolerations[0].tolerationSeconds", 30),
        lambda f: f.set("pools[0].tolerations[0].tolerationSeconds", 30).set(
            "pools[0].tolerations[0].effect", "NoExecute"
        ),
        "pools[0].tolerations[0].tolerationSeconds",
        "only to effect NoExecute",
    ),
    Case(
        "toleration-key-invalid",
        lambda f: f.set("pools[0].tolerations[0].key", "nvidia.com/"),
        lambda f: f.set("pools[0].tolerations[0].key", "nvidia.com/mig"),
        "pools[0].tolerations[0].key",
        "empty name part",
    ),
    Case(
        "nine-labels-on-a-kueue-pool",
        lambda f: f.set("pools[0].nodeLabels", NINE_LABELS),
        lambda f: f.set(
            "pools[1].nodeLabels", NINE_LABELS | {"gpufleet.dev/pool": "a100", "volcano.sh/nodegroup-name": "a100"}
        ),
        "pools[0].nodeLabels",
        "at most 8",
    ),
    Case(
        "nine-taints-on-a-kueue-pool",
        lambda f: f.set("pools[0].taints", [{"key": f"example.com/t{i}"} for i in range(9)]),
        lambda f: f.set("pools[0].taints", [{"key": f"example.com/t{i}"} for i in range(8)]),
        "pools[0].taints",
        "at most 8",
    ),
    Case(
        "nine-tolerations-on-a-kueue-pool",
        lambda f: f.set("pools[0].tolerations", [{"key": f"example.com/t{i}", "operator": "Exists"} for i in range(9)]),
        lambda f: f.set("pools[0].tolerations", [{"key": f"example.com/t{i}", "operator": "Exists"} for i in range(8)]),
        "pools[0].tolerations",
        "at most 8",
    ),
    Case(
        "gpu-resource-not-allocatable",
        lambda f: f.set("pools[0].gpuResource", "amd.com/gpu"),
        lambda f: f.set("pools[0].gpuResource", "amd.com/gpu").set(
            "pools[0].allocatable", {"amd.com/gpu": 8, "cpu": 96}
        ),
        "pools[0].gpuResource",
        "is not in allocatable",
    ),
    Case(
        "zero-gpus-per-node",
        lambda f: f.set('pools[1].allocatable["nvidia.com/gpu"]', 0),
        lambda f: f.set('pools[1].allocatable["nvidia.com/gpu"]', 16),
        "pools[1].allocatable.nvidia.com/gpu",
        "is 0 per node",
    ),
    Case(
        "negative-allocatable",
        lambda f: f.set("pools[0].allocatable.cpu", -1),
        lambda f: f.set("pools[0].allocatable.cpu", 1),
        "pools[0].allocatable.cpu",
        "negative",
    ),
    Case(
        "invalid-resource-name",
        lambda f: f.set('pools[0].allocatable["rdma ib"]', 8),
        lambda f: f.set('pools[0].allocatable["rdma/ib"]', 8),
        "pools[0].allocatable.rdma ib",
        "resource name",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_bad_pool_field_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_pool_passes(case: Case) -> None:
    clean(case)
