"""The GPU arithmetic behind GANG401-GANG403: effective pod requests and the pools a pod may use."""

from __future__ import annotations

from decimal import Context, Decimal, localcontext

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpufleet.rules.demands import candidate_pools, selected_pools
from gpufleet.rules.gpumath import pod_request
from tests.rules import fleets


def c(gpus: int | None = None, sidecar: bool = False, request_only: bool = False) -> dict:
    out: dict = {"name": "c", "resources": {("requests" if request_only else "limits"): {"nvidia.com/gpu": gpus}}}
    if sidecar:
        out["restartPolicy"] = "Always"
    return out


@pytest.mark.parametrize(
    "containers, inits, expected",
    [
        ([c(2), c(3)], [], 5),
        ([c(2)], [c(6)], 6),  # a larger init container sets the peak
        ([c(2)], [c(1, sidecar=True), c(6)], 7),  # the sidecar runs next to the later init container
        ([c(2)], [c(1, sidecar=True)], 3),  # and next to the main containers
        ([c(4, request_only=True)], [], 4),
        ([{"name": "none"}], [], 0),
    ],
)
def test_the_effective_pod_request_counts_init_containers_and_sidecars(containers, inits, expected):
    assert pod_request({"containers": containers, "initContainers": inits}, "nvidia.com/gpu") == Decimal(expected)


@pytest.mark.parametrize(
    "spec, expected",
    [
        ({"nodeSelector": {"gpufleet.dev/pool": "l4"}}, ["l4"]),
        ({"nodeSelector": {"gpufleet.dev/pool": "a100"}}, []),
        ({"nodeSelector": {"kubernetes.io/arch": "amd64"}}, []),  # says nothing about pools
        (
            {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "gpufleet.dev/pool", "operator": "NotIn", "values": ["l4"]}
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
            ["h100"],
        ),
        (
            {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "gpufleet.dev/pool", "operator": "In", "values": ["l4"]}
                                    ]
                                },
                                {"matchExpressions": [{"key": "gpufleet.dev/pool", "operator": "Exists"}]},
                            ]
                        }
                    }
                }
            },
            ["h100", "l4"],
        ),
    ],
)
def test_node_selectors_and_required_affinity_select_pools_by_their_labels(spec, expected):
    assert [p.name for p in selected_pools(spec, fleets.fleet().pools)] == expected


@pytest.mark.parametrize("namespace, expected", [("research", ["h100"]), ("elsewhere", ["h100", "l4"])])
def test_without_a_selector_a_pod_may_use_its_teams_pools_else_every_pool(namespace, expected):
    pools, _ = candidate_pools({}, namespace, fleets.fleet())
    assert [p.name for p in pools] == expected


@pytest.mark.parametrize(
    "containers, inits",
    [
        ([c(2), c(3)], []),
        ([c(2)], [c(6)]),
        ([c(2)], [c(1, sidecar=True), c(6)]),
        ([c(4, request_only=True)], []),
        ([{"name": "none"}], []),
        (
            [{"name": "m", "resources": {"limits": {"nvidia.com/gpu": 2, "cpu": "500m", "memory": "1Gi"}}}],
            [c(1, sidecar=True)],
        ),
    ],
)
def test_the_one_pass_pod_requests_agree_with_the_per_resource_request(containers, inits):
    from gpufleet.workloads.resources import pod_requests

    spec = {"containers": containers, "initContainers": inits}
    names = ["nvidia.com/gpu", "cpu", "memory", "amd.com/gpu"]
    assert pod_requests(spec, names) == {r: pod_request(spec, r) for r in names if r in pod_requests(spec, names)}
    assert all(pod_requests(spec, names).get(r, Decimal(0)) == pod_request(spec, r) for r in names)


_names = st.sampled_from(["nvidia.com/gpu", "cpu", "memory", "amd.com/gpu", "nvidia.com/mig-1g.5gb"])
_quantities = st.one_of(
    st.sampled_from(["8", "0", "500m", "1e3", "1.5", "900Gi", "0.001", "-1", "bad", "", "1n", "12Ki"]),
    st.integers(min_value=-3, max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.none(),
)
_resources = st.dictionaries(_names, _quantities, max_size=4)
_containers = st.lists(
    st.one_of(
        st.fixed_dictionaries(
            {"name": st.just("c")},
            optional={"resources": st.fixed_dictionaries({}, optional={"requests": _resources, "limits": _resources})},
        ),
        st.just("not a container"),
    ),
    max_size=3,
)


@settings(max_examples=300, deadline=None)
@given(
    _containers,
    st.one_of(
        st.just([]),
        _containers.map(
            lambda cs: [
                {**c, "restartPolicy": "Always"} if isinstance(c, dict) and i % 2 else c for i, c in enumerate(cs)
            ]
        ),
    ),
)
def test_the_one_pass_template_requests_equal_the_general_ones_digit_for_digit(containers, inits):
    from gpufleet.rules.gpumath import requested_resources, template_pod_requests
    from gpufleet.workloads.resources import pod_requests

    spec = {"containers": containers, "initContainers": inits}
    with localcontext(Context(prec=60)):  # the engine's context
        fast, general = template_pod_requests(spec), pod_requests(spec, sorted(requested_resources(spec)))
    assert list(fast) == list(general) and {k: str(v) for k, v in fast.items()} == {
        k: str(v) for k, v in general.items()
    }


@given(st.lists(_quantities, max_size=6))
def test_the_remembered_amounts_are_the_parsed_ones(values):
    from gpufleet.rules import gpumath

    for value in values * 2:  # the second time from the memo
        assert gpumath.amount(value) == gpumath._amount(value)
