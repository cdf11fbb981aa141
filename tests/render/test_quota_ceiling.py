"""Each team's quota ceiling in the fleet context: Kueue's potentialAvailable and Volcano's capability, as rendered."""

from __future__ import annotations

from decimal import Decimal

import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.render.context import render_context
from tests.render.builders import cohort, fleet, pool, quota, team

KUEUE = [pool("h100")]  # 10 nodes x 8 GPUs
VOLCANO = [pool("a100", system="volcano")]


def ceiling(model, team_name: str, pool_name: str) -> tuple[str, str]:
    for t in render_context(model)["teams"]:
        if t["name"] == team_name:
            entry = next(q for q in t["quota"] if q["pool"] == pool_name)
            return entry["ceiling"], entry["ceilingFrom"]
    raise AssertionError(f"no team {team_name}")


@pytest.mark.parametrize(
    ("teams", "cohorts", "expected"),
    [
        pytest.param([team("a", {"h100": quota(16)}, cohort=None)], [], ("16", "nominal"), id="no cohort: nominal"),
        pytest.param(
            [team("a", {"h100": quota(16, 16)}), team("b", {"h100": quota(32)})],
            [cohort()],
            ("32", "borrowingLimit"),
            id="nominal 16 + borrowing limit 16",
        ),
        pytest.param(
            [team("a", {"h100": quota(16)}), team("b", {"h100": quota(8)})],
            [cohort()],
            ("24", "cohort"),
            id="no borrowing limit: what the cohort can lend",
        ),
        pytest.param(
            [team("a", {"h100": quota(16)}), team("b", {"h100": quota(8, lending=2)})],
            [cohort()],
            ("18", "cohort"),
            id="a lending limit keeps the rest out of the cohort",
        ),
        pytest.param(
            [team("a", {"h100": quota(16, lending=4)}), team("b", {"h100": quota(8)})],
            [cohort()],
            ("24", "cohort"),
            id="the team's own lent and unlent quota both count",
        ),
        pytest.param(
            [team("a", {"h100": quota(16)}), team("b", {"h100": quota(8)})],
            [cohort(quota={"h100": quota(10)})],
            ("34", "cohort"),
            id="the cohort's own quota adds to its members'",
        ),
        pytest.param(
            [team("a", {"h100": quota(16, 16)}), team("b", {"h100": quota(4)})],
            [cohort()],
            ("20", "cohort"),
            id="a borrowing limit above what the cohort holds",
        ),
        pytest.param(
            [team("a", {"h100": quota(16)}), team("b", {"h100": quota(40)}, cohort="org")],
            [cohort("org"), cohort("ml", parent="org", quota={"h100": quota(0, 10)})],
            ("26", "cohort"),
            id="a child cohort's borrowing limit caps its whole subtree",
        ),
    ],
)
def test_a_kueue_team_may_be_granted_at_most_what_potential_available_says(teams, cohorts, expected):
    assert ceiling(fleet(pools=KUEUE, teams=teams, cohorts=cohorts), "a", "h100") == expected


@pytest.mark.parametrize(
    ("teams", "cohorts", "expected"),
    [
        pytest.param([team("a", {"a100": quota(16)}, cohort=None)], [], ("16", "capability"), id="no cohort"),
        pytest.param(
            [team("a", {"a100": quota(16, 8)}), team("b", {"a100": quota(8)})],
            [cohort()],
            ("24", "capability"),
            id="nominal + borrowing limit",
        ),
        pytest.param(
            [team("a", {"a100": quota(16)}), team("b", {"a100": quota(8)})],
            [cohort()],
            ("24", "ancestorCapability"),
            id="no cap written: the root cohort's queue holds its teams' total (they borrow from each other only)",
        ),
        pytest.param(
            [team("a", {"a100": quota(16)}), team("b", {"a100": quota(8)}, cohort="org")],
            [cohort("org"), cohort("ml", parent="org", quota={"a100": quota(0, 4)})],
            ("20", "ancestorCapability"),
            id="the nearest capped parent queue",
        ),
    ],
)
def test_a_volcano_team_may_be_granted_at_most_its_queue_capability(teams, cohorts, expected):
    assert ceiling(fleet(pools=VOLCANO, teams=teams, cohorts=cohorts), "a", "a100") == expected


def test_the_ceiling_reads_back_with_its_parts():
    model = fleet(pools=KUEUE, teams=[team("a", {"h100": quota(16, 16)}), team("b", {"h100": quota(32)})])
    back = FleetContext.from_dict(render_context(model)).team_for_namespace("a")
    assert back is not None
    got = back.quota_on("h100", "nvidia.com/gpu")
    assert got is not None
    assert (got.nominal, got.borrowing_limit, got.ceiling, got.ceiling_from) == (
        Decimal(16),
        Decimal(16),
        Decimal(32),
        "borrowingLimit",
    )


@pytest.mark.parametrize(
    ("team_doc", "expected"),
    [
        pytest.param({}, None, id="an older context: unknown"),
        pytest.param({"quota": "lots"}, None, id="not a list: unknown"),
        pytest.param({"quota": [{"pool": "h100"}, 7]}, (), id="malformed entries are skipped"),
    ],
)
def test_the_reader_is_lenient_about_the_quota(team_doc, expected):
    ctx = FleetContext.from_dict({"teams": [{"name": "a", "namespaces": ["a"], **team_doc}], "pools": []})
    assert ctx.teams[0].quota == expected
