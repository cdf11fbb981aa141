"""Capacity: nominal quota within the pool, and pools that do not share nodes."""

from __future__ import annotations

import pytest

from gpufleet.kubetypes.vocab import VOLCANO_NODEGROUP_LABEL
from gpufleet.model.checks import capacity
from tests.model.builders import fleet
from tests.model.expect import Case, clean, params, reported, setting

NODEGROUP = VOLCANO_NODEGROUP_LABEL

CASES = [
    setting(
        "team-gpus-above-capacity",
        "teams[0].quota.h100.nominal",
        25,
        24,
        "nominal nvidia.com/gpu quota on pool 'h100' is 33",
        at="pools[0]",
    ),
    setting(
        "cohort-quota-counts",
        "cohorts[0].quota.a100",
        {"nominal": 5},
        {"nominal": 4},
        "ml 5 (cohorts[0].quota.a100.nominal)",
        at="pools[1]",
    ),
    setting(
        "overridden-cpu-above-capacity",
        "teams[0].quota.h100.resources.cpu",
        {"nominal": 289},
        {"nominal": 288},
        "nominal cpu quota",
        at="pools[0]",
    ),
    setting(
        "same-nodes-both-systems",
        "pools[1].nodeLabels",
        {"gpufleet.dev/pool": "h100"},
        {"gpufleet.dev/pool": "h100-volcano", NODEGROUP: "a100"},
        "claimed by both quota systems",
    ),
    Case(
        "same-nodes-same-system",
        lambda f: f.with_pool("h100-b", nodeLabels={"gpufleet.dev/pool": "h100"}),
        lambda f: f.with_pool("h100-b"),
        "pools[2].nodeLabels",
        "counted twice",
    ),
    setting(
        "pool-without-labels-selects-all",
        "pools[1].nodeLabels",
        {},
        {"gpufleet.dev/pool": "a100", NODEGROUP: "a100"},
        "select every node of pools[0]",
    ),
    Case(
        "pool-selecting-a-superset",
        lambda f: f.set("pools[1].nodeLabels", {"gpufleet.dev/pool": "h100", "example.com/zone": "a"}),
        lambda f: f.set(
            "pools[1].nodeLabels", {"gpufleet.dev/pool": "a100", "example.com/zone": "a", NODEGROUP: "a100"}
        ),
        "pools[0].nodeLabels",
        "select every node of pools[1]",
    ),
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


@pytest.mark.parametrize("team", [0, 1])
def test_without_history_an_overfilled_pool_is_reported_once_at_the_pool_listing_every_contributor(team: int) -> None:
    """Issue 19, item 5: not at the largest contributor, which is often not what changed."""
    issues = _over_capacity(fleet().set(f"teams[{team}].quota.h100.nominal", 40))
    assert [i.path for i in issues] == ["pools[0]"]
    assert issues[0].message.startswith("nominal nvidia.com/gpu quota on pool 'h100'")
    assert "(teams[0].quota.h100.nominal)" in issues[0].message and "(teams[1].quota.h100.nominal)" in issues[0].message
    assert "also over capacity: cpu" in issues[0].message
    assert "lower research" not in issues[0].fix and "gpufleet diff" in issues[0].fix


def test_with_history_a_new_teams_quota_is_named_as_the_edit_that_overfilled_the_pool() -> None:
    base = fleet().model()
    new = fleet().with_team("gamma", quota={"h100": {"nominal": 16}}).model()
    [issue] = capacity.blame(base, new)
    assert (str(issue.path), "team 'gamma'" in issue.message, "new" in issue.message) == (
        "teams[2].quota.h100.nominal",
        True,
        True,
    )


def test_with_history_a_shrunk_pool_is_named_at_its_node_count() -> None:
    base, new = fleet().model(), fleet().set("pools[0].nodeCount", 2).model()
    [issue] = capacity.blame(base, new)
    assert str(issue.path) == "pools[0].nodeCount" and "4 -> 2" in issue.message


def test_with_history_a_raised_nominal_is_named_even_when_another_team_holds_more() -> None:
    base = fleet().set("teams[1].quota.h100.nominal", 4).model()
    new = fleet().set("teams[1].quota.h100.nominal", 20).model()
    assert [str(i.path) for i in capacity.blame(base, new)] == ["teams[1].quota.h100.nominal"]


def test_no_capacity_issue_points_at_the_node_count() -> None:
    issues = fleet().set("teams[0].quota.h100.nominal", 40).issues()
    assert not [i for i in issues if str(i.path).endswith("nodeCount")]


@pytest.mark.parametrize(
    ("gpus", "cpu", "nodes", "shares"), [(3, 455, 1, [3]), (19, 299, 2, [29, 9]), (7, 96, 2, [10, 4])]
)
def test_a_pool_split_exactly_among_teams_is_within_capacity_for_every_node_shape(
    gpus: int, cpu: int, nodes: int, shares: list[int]
) -> None:
    """Issue 36: the derived cpu quota is what the renderer writes (multiply first, then divide), so a pool
    whose GPUs are exactly shared out is never reported over capacity by a rounding of cpu / gpus."""
    builder = fleet().empty().with_pool("odd", gpus=gpus, cpu=cpu, nodes=nodes)
    for i, share in enumerate(shares):
        builder = builder.with_team(f"t{i}", quota={"odd": {"nominal": share}})
    assert _over_capacity(builder) == []
