"""Capacity: nominal quota within the pool, and pools that do not share nodes."""

from __future__ import annotations

import pytest

from tests.model.builders import fleet
from tests.model.expect import Case, clean, params, reported

NODEGROUP = "volcano.sh/nodegroup-name"

CASES = [
    Case("team-gpus-above-capacity", lambda f: f.set("teams[0].quota.h100.nominal", 25),
         lambda f: f.set("teams[0].quota.h100.nominal", 24), "teams[0].quota.h100.nominal", "nominal nvidia.com/gpu quota on pool 'h100' is 33"),
    Case("cohort-quota-counts", lambda f: f.set("cohorts[0].quota.a100", {"nominal": 5}),
         lambda f: f.set("cohorts[0].quota.a100", {"nominal": 4}), "teams[0].quota.a100.nominal", "ml 5"),
    Case("overridden-cpu-above-capacity", lambda f: f.set("teams[0].quota.h100.resources.cpu", {"nominal": 289}),
         lambda f: f.set("teams[0].quota.h100.resources.cpu", {"nominal": 288}), "teams[0].quota.h100.resources.cpu.nominal", "nominal cpu quota"),
    Case("same-nodes-both-systems", lambda f: f.set("pools[1].nodeLabels", {"gpufleet.dev/pool": "h100"}),
         lambda f: f.set("pools[1].nodeLabels", {"gpufleet.dev/pool": "h100-volcano", NODEGROUP: "a100"}), "pools[1].nodeLabels", "claimed by both quota systems"),
    Case("same-nodes-same-system", lambda f: f.with_pool("h100-b", nodeLabels={"gpufleet.dev/pool": "h100"}),
         lambda f: f.with_pool("h100-b"), "pools[2].nodeLabels", "counted twice"),
    Case("pool-without-labels-selects-all", lambda f: f.set("pools[1].nodeLabels", {}),
         lambda f: f.set("pools[1].nodeLabels", {"gpufleet.dev/pool": "a100", NODEGROUP: "a100"}), "pools[1].nodeLabels", "select every node of pools[0]"),
    Case("pool-selecting-a-superset", lambda f: f.set("pools[1].nodeLabels", {"gpufleet.dev/pool": "h100", "example.com/zone": "a"}),
         lambda f: f.set("pools[1].nodeLabels", {"gpufleet.dev/pool": "a100", "example.com/zone": "a", NODEGROUP: "a100"}),
         "pools[0].nodeLabels", "select every node of pools[1]"),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_capacity_problem_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_capacity_passes(case: Case) -> None:
    clean(case)


def test_quota_that_fills_a_pool_exactly_is_accepted() -> None:
    assert fleet().set("teams[0].quota.h100.nominal", 24).set("cohorts[0].quota.a100", {"nominal": 4}).issues() == []


def _over_capacity(builder) -> list:
    return [i for i in builder.issues() if "quota on pool" in i.message]


@pytest.mark.parametrize(("team", "path"), [
    (0, "teams[0].quota.h100.nominal"),
    (1, "teams[1].quota.h100.nominal"),
])
def test_an_oversized_team_quota_is_reported_once_at_the_edited_team_with_gpus_first(team: int, path: str) -> None:
    issues = _over_capacity(fleet().set(f"teams[{team}].quota.h100.nominal", 40))
    assert [i.path for i in issues] == [path]
    assert issues[0].message.startswith("nominal nvidia.com/gpu quota on pool 'h100'")
    assert "also over capacity: cpu" in issues[0].message


def test_no_capacity_issue_points_at_the_node_count() -> None:
    issues = fleet().set("teams[0].quota.h100.nominal", 40).issues()
    assert not [i for i in issues if str(i.path).endswith("nodeCount")]
