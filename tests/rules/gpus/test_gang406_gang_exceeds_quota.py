"""GANG406: a gang's minimum against the most its team's quota will ever grant it, from a real model's context."""

from __future__ import annotations

import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.render.context import render_context
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.render.builders import cohort, fleet, pool, quota, team
from tests.rules import builders as b


def context(robotics_quota: dict, cohort_name: str | None = "ml", others: int = 96) -> CheckContext:
    """Pool h100 (16 nodes x 8 GPUs, Kueue) and team robotics with ``robotics_quota`` beside a team of ``others`` GPUs."""
    model = fleet(
        pools=[pool("h100", nodes=16)],
        cohorts=[cohort()],
        teams=[
            team("robotics", {"h100": robotics_quota}, cohort=cohort_name),
            team("llm", {"h100": quota(others)}),
        ],
    )
    return CheckContext(fleet=FleetContext.from_dict(render_context(model)))


def messages(obj: dict, ctx: CheckContext) -> list[str]:
    return [f.message for f in engine.check_object(obj, ctx, select=["GANG406"])]


def robotics_job(parallelism: int, **kwargs) -> dict:
    return b.batch_job(
        "train",
        parallelism=parallelism,
        namespace="robotics",
        labels={"kueue.x-k8s.io/queue-name": "robotics"},
        gpus=8,
        **kwargs,
    )


def test_a_gang_larger_than_nominal_plus_borrowing_limit_is_never_admitted():
    found = messages(robotics_job(8), context(quota(16, 16)))
    assert len(found) == 1
    assert "needs 64 nvidia.com/gpu" in found[0]
    assert "team robotics" in found[0]
    assert "at most 32 on pool h100" in found[0]
    assert "nominal 16 + borrowing limit 16" in found[0]


@pytest.mark.parametrize(
    ("parallelism", "robotics_quota", "cohort_name", "found"),
    [
        pytest.param(4, quota(16, 16), "ml", False, id="32 GPUs within 16 + 16"),
        pytest.param(5, quota(16, 16), "ml", True, id="40 GPUs above 16 + 16"),
        pytest.param(3, quota(16), None, True, id="no cohort: the nominal alone"),
        pytest.param(8, quota(16), "ml", False, id="no borrowing limit: the cohort lends 96"),
        pytest.param(16, quota(16), "ml", True, id="no borrowing limit: 128 above the cohort's 112"),
    ],
)
def test_the_ceiling_follows_the_quota_as_kueue_computes_it(parallelism, robotics_quota, cohort_name, found):
    assert bool(messages(robotics_job(parallelism), context(robotics_quota, cohort_name))) is found


def test_kueue_partial_admission_is_judged_by_its_minimum():
    ctx = context(quota(16, 16))
    fits = robotics_job(8, annotations={"kueue.x-k8s.io/job-min-parallelism": "4"})
    too_big = robotics_job(8, annotations={"kueue.x-k8s.io/job-min-parallelism": "5"})
    not_a_number = robotics_job(8, annotations={"kueue.x-k8s.io/job-min-parallelism": "four"})
    assert (messages(fits, ctx), bool(messages(too_big, ctx)), bool(messages(not_a_number, ctx))) == ([], True, True)


def test_a_context_without_quota_ceilings_says_nothing():
    data = render_context(
        fleet(
            pools=[pool("h100", nodes=16)],
            teams=[team("robotics", {"h100": quota(16, 16)}), team("llm", {"h100": quota(96)})],
        )
    )
    for t in data["teams"]:
        t.pop("quota")
    assert messages(robotics_job(8), CheckContext(fleet=FleetContext.from_dict(data))) == []


def test_the_fix_names_the_quota_to_raise():
    finding = engine.check_object(robotics_job(8), context(quota(16, 16)), select=["GANG406"])[0]
    assert "quota.h100.borrowingLimit" in finding.fix and "team robotics" in finding.fix


def test_a_trainjob_without_its_runtime_is_judged_by_num_nodes_at_its_own_path():
    tj = b.train_job("tj", namespace="robotics", num_nodes=8)
    tj["spec"]["trainer"]["resourcesPerNode"] = {"limits": {"nvidia.com/gpu": 8}}
    found = engine.check_object(tj, context(quota(16, 16)), select=["GANG406"])
    assert [(f.path, "needs 64" in f.message) for f in found] == [("spec.trainer.numNodes", True)]
