"""The quota arithmetic has one owner (issue 36): the checks judge the numbers the renderer writes.

Before, ``model/checks/shapes.py`` divided first (``nominal x (cpu / gpus)``) and
``render/resources.py`` multiplied first: for node shapes whose cpu does not divide by their
GPUs, a pool shared out exactly was reported over capacity while the rendered ClusterQueues
summed to exactly the pool (found by the first property below).
"""

from __future__ import annotations

from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpufleet.model.checks.shapes import Owner, expand
from gpufleet.model.scaling import covered_resources, pool_resources, quota_first, resource_order
from gpufleet.render import resources
from gpufleet.render.kueue import render_cluster_queues
from tests.model.builders import fleet

SHAPES = dict(gpus=st.integers(1, 64), cpu=st.integers(1, 512), memory_gi=st.integers(1, 4096), nodes=st.integers(1, 8))
BOUNDED = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


def _split(total: int, cuts: list[int]) -> list[int]:
    """``total`` GPUs shared out in the order of ``cuts``, the rest to the last team."""
    shares, rest = [], total
    for cut in cuts:
        if rest <= 0:
            break
        shares.append(min(cut, rest))
        rest -= shares[-1]
    if rest > 0:
        shares.append(rest)
    return shares


def _shared_pool(gpus: int, cpu: int, memory_gi: int, nodes: int, cuts: list[int]):
    builder = (
        fleet().empty().with_pool("odd", gpus=gpus, cpu=cpu, nodes=nodes, memory=f"{memory_gi}Gi").with_cohort("all")
    )
    for i, share in enumerate(_split(gpus * nodes, cuts)):
        builder = builder.with_team(f"t{i}", cohort="all", quota={"odd": {"nominal": share, "borrowingLimit": share}})
    return builder


@BOUNDED
@given(cuts=st.lists(st.integers(1, 64), max_size=5), **SHAPES)
def test_a_pool_shared_out_exactly_is_never_over_capacity(
    gpus: int, cpu: int, memory_gi: int, nodes: int, cuts: list[int]
) -> None:
    issues = _shared_pool(gpus, cpu, memory_gi, nodes, cuts).issues()
    assert [i.message for i in issues if "quota on pool" in i.message] == []


@BOUNDED
@given(cuts=st.lists(st.integers(1, 64), max_size=3), **SHAPES)
def test_the_checks_amounts_are_the_ones_the_cluster_queues_carry(
    gpus: int, cpu: int, memory_gi: int, nodes: int, cuts: list[int]
) -> None:
    model = _shared_pool(gpus, cpu, memory_gi, nodes, cuts).model()
    pool = model.pool("odd")
    written = {
        q["metadata"]["name"]: {r["name"]: r for r in q["spec"]["resourceGroups"][0]["flavors"][0]["resources"]}
        for q in render_cluster_queues(model)
    }
    for i, team in enumerate(model.teams):
        for amount in expand(Owner("teams", i, team.name, team.quota), pool, team.quota["odd"]):
            entry = written[team.name][amount.resource]
            assert entry["nominalQuota"] == resources.fmt(amount.resource, amount.nominal)
            assert entry["borrowingLimit"] == resources.fmt(amount.resource, amount.borrowing)


def test_checks_list_the_quota_resource_first_and_the_rest_in_the_rendered_order() -> None:
    pool = (
        fleet()
        .with_pool("odd", allocatable={"nvidia.com/gpu": 8, "rdma/ib": 4, "memory": "1Ti", "cpu": 96})
        .model()
        .pool("odd")
    )
    assert (quota_first(pool), pool_resources(pool)) == (
        ["nvidia.com/gpu", "cpu", "memory", "rdma/ib"],
        ["cpu", "memory", "nvidia.com/gpu", "rdma/ib"],
    )


def test_covered_resources_take_overrides_and_only_the_systems_pools() -> None:
    model = (
        fleet()
        .with_pool("extra", system="volcano", allocatable={"nvidia.com/gpu": 8, "cpu": 8, "example.com/fpga": 1})
        .set("teams[0].quota.h100.resources", {"cpu": {"nominal": 10}})
        .model()
    )
    assert covered_resources(model, "kueue") == resource_order(["cpu", "memory", "nvidia.com/gpu"])
    assert "example.com/fpga" in covered_resources(model, "volcano")


def test_a_quota_spread_multiplies_before_it_divides() -> None:
    model = _shared_pool(3, 455, 1, 1, []).model()
    [amount] = [
        a
        for a in expand(Owner("teams", 0, "t0", model.teams[0].quota), model.pool("odd"), model.teams[0].quota["odd"])
        if a.resource == "cpu"
    ]
    assert amount.nominal == Decimal(455)
