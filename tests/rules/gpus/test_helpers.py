"""The GPU arithmetic behind GANG401-GANG403: effective pod requests and the pools a pod may use."""

from __future__ import annotations

from decimal import Decimal

import pytest

from gpufleet.rules.gpus._helpers import candidate_pools, pod_request, selected_pools
from tests.rules import fleets


def c(gpus: int | None = None, sidecar: bool = False, request_only: bool = False) -> dict:
    out: dict = {"name": "c", "resources": {("requests" if request_only else "limits"): {"nvidia.com/gpu": gpus}}}
    if sidecar:
        out["restartPolicy"] = "Always"
    return out


@pytest.mark.parametrize("containers, inits, expected", [
    ([c(2), c(3)], [], 5),
    ([c(2)], [c(6)], 6),                               # a larger init container sets the peak
    ([c(2)], [c(1, sidecar=True), c(6)], 7),           # the sidecar runs next to the later init container
    ([c(2)], [c(1, sidecar=True)], 3),                 # and next to the main containers
    ([c(4, request_only=True)], [], 4),
    ([{"name": "none"}], [], 0),
])
def test_the_effective_pod_request_counts_init_containers_and_sidecars(containers, inits, expected):
    assert pod_request({"containers": containers, "initContainers": inits}, "nvidia.com/gpu") == Decimal(expected)


@pytest.mark.parametrize("spec, expected", [
    ({"nodeSelector": {"gpufleet.dev/pool": "l4"}}, ["l4"]),
    ({"nodeSelector": {"gpufleet.dev/pool": "a100"}}, []),
    ({"nodeSelector": {"kubernetes.io/arch": "amd64"}}, []),   # says nothing about pools
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "gpufleet.dev/pool", "operator": "NotIn", "values": ["l4"]}]}]}}}}, ["h100"]),
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "gpufleet.dev/pool", "operator": "In", "values": ["l4"]}]},
        {"matchExpressions": [{"key": "gpufleet.dev/pool", "operator": "Exists"}]}]}}}}, ["h100", "l4"]),
])
def test_node_selectors_and_required_affinity_select_pools_by_their_labels(spec, expected):
    assert [p.name for p in selected_pools(spec, fleets.fleet().pools)] == expected


@pytest.mark.parametrize("namespace, expected", [("research", ["h100"]), ("elsewhere", ["h100", "l4"])])
def test_without_a_selector_a_pod_may_use_its_teams_pools_else_every_pool(namespace, expected):
    pools, _ = candidate_pools({}, namespace, fleets.fleet())
    assert [p.name for p in pools] == expected


@pytest.mark.parametrize("containers, inits", [
    ([c(2), c(3)], []), ([c(2)], [c(6)]), ([c(2)], [c(1, sidecar=True), c(6)]),
    ([c(4, request_only=True)], []), ([{"name": "none"}], []),
    ([{"name": "m", "resources": {"limits": {"nvidia.com/gpu": 2, "cpu": "500m", "memory": "1Gi"}}}], [c(1, sidecar=True)]),
])
def test_the_one_pass_pod_requests_agree_with_the_per_resource_request(containers, inits):
    from gpufleet.rules.gpus._helpers import pod_requests

    spec = {"containers": containers, "initContainers": inits}
    names = ["nvidia.com/gpu", "cpu", "memory", "amd.com/gpu"]
    assert pod_requests(spec, names) == {r: pod_request(spec, r) for r in names if r in pod_requests(spec, names)}
    assert all(pod_requests(spec, names).get(r, Decimal(0)) == pod_request(spec, r) for r in names)
