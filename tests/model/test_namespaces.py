"""Team namespaces: one owner each, never a system namespace."""

from __future__ import annotations

import pytest

from tests.model.builders import fleet
from tests.model.expect import Case, clean, params, reported, setting


def _system(ns: str) -> Case:
    return Case(
        f"system-namespace-{ns}",
        lambda f: f.set("teams[1].namespaces", ["beta", ns]),
        lambda f: f.set("teams[1].namespaces", ["beta", f"{ns}-team"]),
        "teams[1].namespaces[1]",
        "system namespace",
    )


CASES = [
    *(
        _system(ns)
        for ns in (
            "kube-system",
            "kube-public",
            "kube-node-lease",
            "default",
            "kueue-system",
            "volcano-system",
            "gpufleet-system",
        )
    ),
    Case(
        "renamed-kueue-namespace",
        lambda f: f.set("engines.kueue.namespace", "queues").set("teams[1].namespaces", ["queues"]),
        lambda f: f.set("engines.kueue.namespace", "queues"),
        "teams[1].namespaces[0]",
        "(Kueue)",
    ),
    setting(
        "two-teams-one-namespace",
        "teams[1].namespaces",
        ["beta", "alpha"],
        ["beta", "alpha-beta"],
        "already listed by team 'alpha'",
        at="teams[1].namespaces[1]",
    ),
    setting(
        "namespace-listed-twice",
        "teams[1].namespaces",
        ["beta", "beta"],
        ["beta"],
        "the same team",
        at="teams[1].namespaces[1]",
    ),
    setting(
        "team-namespace-exempt-from-partitioning",
        "partitionExemptNamespaces",
        ["gpu-operator", "beta"],
        ["gpu-operator"],
        "lets that team's pods",
        at="partitionExemptNamespaces[1]",
    ),
    *(
        Case(
            f"opt-out-label-{bad!r}",
            lambda f, b=bad: f.set("controller.optOutLabel", b),
            lambda f: f.set("controller.optOutLabel", "example.com/gang-admission"),
            "controller.optOutLabel",
            says,
        )
        for bad, says in (
            ("", "is empty"),
            ("a/b/c", "more than one '/'"),
            ("gpufleet.dev/has space", "the opt-out label key"),
            ("Bad_Prefix!/admission", "the opt-out label key"),
            ("x" * 64, "the opt-out label key"),
        )
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_bad_namespace_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_namespaces_pass(case: Case) -> None:
    clean(case)


def test_a_namespace_claimed_by_three_teams_is_reported_for_each_later_claim() -> None:
    issues = fleet().with_team("gamma", namespaces=["alpha"]).set("teams[1].namespaces", ["alpha"]).issues()
    assert {"teams[1].namespaces[0]", "teams[2].namespaces[0]"} <= {i.path for i in issues}
