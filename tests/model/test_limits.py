"""Borrowing and lending limits, negative quantities, per-resource overrides."""

from __future__ import annotations

import pytest

from tests.model.builders import fleet
from tests.model.expect import Case, clean, params, reported, setting


def _under_org(f):
    return f.set("cohorts[0].parent", "org").with_cohort("org")


CASES = [
    Case(
        "team-borrowing-without-cohort",
        lambda f: f.drop("teams[0].cohort"),
        lambda f: f.drop("teams[0].cohort").drop("teams[0].quota.h100.borrowingLimit"),
        "teams[0].quota.h100.borrowingLimit",
        "without a cohort",
    ),
    Case(
        "team-lending-without-cohort",
        lambda f: f.drop("teams[1].cohort").drop("teams[1].quota.a100.borrowingLimit"),
        lambda f: (
            f.drop("teams[1].cohort")
            .drop("teams[1].quota.a100.borrowingLimit")
            .drop("teams[1].quota.h100.lendingLimit")
        ),
        "teams[1].quota.h100.lendingLimit",
        "without a cohort",
    ),
    *(
        Case(
            f"root-cohort-{limit}",
            lambda f, q=quota: f.set("cohorts[0].quota.h100", q),
            lambda f, q=quota: _under_org(f).set("cohorts[0].quota.h100", q),
            f"cohorts[0].quota.h100.{limit}Limit",
            says,
        )
        for limit, quota, says in [
            ("borrowing", {"nominal": 0, "borrowingLimit": 4}, "root cohort has no parent"),
            ("lending", {"nominal": 4, "lendingLimit": 4}, "without a parent"),
        ]
    ),
    setting("team-lending-above-nominal", "teams[1].quota.h100.lendingLimit", 9, 8, "exceeds nominal (8)"),
    Case(
        "cohort-lending-above-its-subtree",
        lambda f: _under_org(f).set("cohorts[0].quota.h100", {"nominal": 4, "lendingLimit": 29}),
        lambda f: _under_org(f).set("cohorts[0].quota.h100", {"nominal": 4, "lendingLimit": 28}),
        "cohorts[0].quota.h100.lendingLimit",
        "the cohort and its members (28)",
    ),
    setting("negative-nominal", "teams[0].quota.h100.nominal", -1, 0, "negative"),
    setting("negative-borrowing", "teams[0].quota.h100.borrowingLimit", "-500m", "1", "negative"),
    setting(
        "negative-override",
        "teams[0].quota.h100.resources.cpu",
        {"nominal": -1},
        {"nominal": 1},
        "negative",
        at="teams[0].quota.h100.resources.cpu.nominal",
    ),
    setting(
        "override-lending-above-nominal",
        "teams[1].quota.h100.resources.memory",
        {"nominal": "64Gi", "lendingLimit": "65Gi"},
        {"nominal": "64Gi", "lendingLimit": "64Gi"},
        "for memory",
        at="teams[1].quota.h100.resources.memory.lendingLimit",
    ),
    Case(
        "override-borrowing-without-cohort",
        lambda f: f.with_team(
            "gamma", quota={"h100": {"nominal": 0, "resources": {"cpu": {"nominal": 0, "borrowingLimit": 8}}}}
        ),
        lambda f: f.with_team("gamma", quota={"h100": {"nominal": 0, "resources": {"cpu": {"nominal": 8}}}}),
        "teams[2].quota.h100.resources.cpu.borrowingLimit",
        "need a cohort",
    ),
    Case(
        "override-of-a-resource-the-pool-lacks",
        lambda f: f.set('teams[0].quota.h100.resources["rdma/ib"]', {"nominal": 2}),
        lambda f: f.set('pools[0].allocatable["rdma/ib"]', 8).set(
            'teams[0].quota.h100.resources["rdma/ib"]', {"nominal": 2}
        ),
        "teams[0].quota.h100.resources.rdma/ib",
        "has no 'rdma/ib'",
    ),
    Case(
        "override-of-the-gpu-resource",
        lambda f: f.set('teams[0].quota.a100.resources["nvidia.com/gpu"]', {"nominal": 2}),
        lambda f: f.set("teams[0].quota.a100.nominal", 2),
        "teams[0].quota.a100.resources.nvidia.com/gpu",
        "quota resource",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_bad_limit_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_limits_pass(case: Case) -> None:
    clean(case)


def test_a_limit_derived_from_the_gpu_limit_is_reported_once_at_the_gpu_field() -> None:
    issues = fleet().set("teams[1].quota.h100.lendingLimit", 9).issues()
    assert [i.path for i in issues if "lendingLimit" in str(i.path)] == ["teams[1].quota.h100.lendingLimit"]
