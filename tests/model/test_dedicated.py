"""Static partitioning: a pool dedicated to one team, and everything that would let another team reach it."""

from __future__ import annotations

import pytest

from gpufleet.kubetypes.vocab import DEDICATED_KEY
from tests.model.builders import FleetBuilder
from tests.model.expect import Case, clean, params, reported

KEY = DEDICATED_KEY


def dedicated(b: FleetBuilder, team: str = "secure", system: str = "kueue") -> FleetBuilder:
    """pools[2] 'vault' (2 x 8 GPUs) dedicated to teams[2] 'secure', marked and tolerated as required."""
    b = b.with_pool(
        "vault",
        system,
        nodes=2,
        dedicatedTo=team,
        nodeLabels={
            "gpufleet.dev/pool": "vault",
            KEY: "secure",
            **({"volcano.sh/nodegroup-name": "vault"} if system == "volcano" else {}),
        },
        taints=[{"key": KEY, "value": "secure", "effect": "NoExecute"}],
        tolerations=[{"key": KEY, "operator": "Equal", "value": "secure", "effect": "NoExecute"}]
        if system == "kueue"
        else [],
    )
    return b.with_team("secure", quota={"vault": {"nominal": 16}})


def _owner_in_cohort(b: FleetBuilder) -> FleetBuilder:
    """The dedicated pool's owner joins cohort 'ml'."""
    return dedicated(b).set("teams[2].cohort", "ml")


CASES = [
    Case(
        "unknown-team",
        lambda f: dedicated(f, team="nobody"),
        dedicated,
        "pools[2].dedicatedTo",
        "no team named 'nobody'",
    ),
    Case(
        "owner-without-quota",
        lambda f: dedicated(f).set("teams[2].quota", {"h100": {"nominal": 0}}),
        dedicated,
        "pools[2].dedicatedTo",
        "holds no quota on its dedicated pool",
    ),
    Case(
        "label-missing",
        lambda f: dedicated(f).set("pools[2].nodeLabels", {"gpufleet.dev/pool": "vault"}),
        dedicated,
        "pools[2].nodeLabels",
        "does not select nodes labelled",
    ),
    Case(
        "taint-missing",
        lambda f: dedicated(f).set("pools[2].taints", []),
        dedicated,
        "pools[2].taints",
        "no NoExecute taint",
    ),
    Case(
        "taint-only-no-schedule",
        lambda f: dedicated(f).set("pools[2].taints[0].effect", "NoSchedule"),
        dedicated,
        "pools[2].taints",
        "NoExecute",
    ),
    Case(
        "kueue-toleration-only-no-schedule",
        lambda f: dedicated(f).set("pools[2].tolerations[0].effect", "NoSchedule"),
        dedicated,
        "pools[2].tolerations",
        "NoExecute",
    ),
    Case(
        "taint-for-another-team",
        lambda f: dedicated(f).set("pools[2].taints[0].value", "alpha"),
        dedicated,
        "pools[2].taints",
        "no NoExecute taint",
    ),
    Case(
        "kueue-toleration-missing",
        lambda f: dedicated(f).set("pools[2].tolerations", []),
        dedicated,
        "pools[2].tolerations",
        "no toleration",
    ),
    Case(
        "other-teams-quota",
        lambda f: dedicated(f).set("teams[0].quota.vault", {"nominal": 8}),
        dedicated,
        "teams[0].quota.vault",
        "may hold no quota on it",
    ),
    Case(
        "cohort-quota",
        lambda f: dedicated(f).set("cohorts[0].quota", {"vault": {"nominal": 8}}),
        dedicated,
        "cohorts[0].quota.vault",
        "a cohort's quota on it is shared",
    ),
    *(
        Case(
            f"owner-in-cohort-{verb}",
            lambda f, closed=closed: _owner_in_cohort(f).set(f"teams[2].quota.vault.{closed}Limit", 0),
            lambda f: _owner_in_cohort(f).set(
                "teams[2].quota.vault", {"nominal": 16, "borrowingLimit": 0, "lendingLimit": 0}
            ),
            f"teams[2].quota.vault.{open_}Limit",
            says,
        )
        for verb, open_, closed, says in [
            ("lends", "lending", "borrowing", "lent to"),
            ("borrows", "borrowing", "lending", "topped up from"),
        ]
    ),
    Case(
        "namespace-shared-with-another-team",
        lambda f: dedicated(f).append("teams[2].namespaces", "alpha"),
        dedicated,
        "teams[2].namespaces[1]",
        "already listed by team 'alpha'",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_breach_of_the_partition_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_partition_passes(case: Case) -> None:
    clean(case)


def test_a_dedicated_volcano_pool_needs_no_flavor_toleration() -> None:
    assert dedicated(FleetBuilder(), system="volcano").issues() == []
