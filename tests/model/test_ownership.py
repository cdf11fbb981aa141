"""Namespace ownership and pool pinning: Kueue and Volcano never share a namespace or a node."""

from __future__ import annotations

import pytest

from gpufleet.kubetypes.vocab import VOLCANO_NODEGROUP_LABEL
from gpufleet.model.ownership import kueue_namespaces, namespace_engine, volcano_namespaces
from tests.model.builders import fleet
from tests.model.expect import Case, clean, params, reported

NODEGROUP = VOLCANO_NODEGROUP_LABEL

CASES = [
    Case(
        "volcano-namespace-not-among-the-teams",
        lambda f: f.set("teams[0].volcanoNamespaces", ["alpha-vc", "elsewhere"]),
        lambda f: f.set("teams[0].namespaces", ["alpha", "alpha-vc", "elsewhere"]).set(
            "teams[0].volcanoNamespaces", ["alpha-vc", "elsewhere"]
        ),
        "teams[0].volcanoNamespaces[1]",
        "not one of the team's namespaces",
    ),
    Case(
        "team-on-both-engines-shares-its-namespaces",
        lambda f: f.set("teams[0].volcanoNamespaces", []),
        lambda f: f,
        "teams[0].volcanoNamespaces",
        "must be split",
    ),
    Case(
        "team-on-both-engines-gives-every-namespace-to-volcano",
        lambda f: f.set("teams[0].namespaces", ["alpha-vc"]).set("teams[0].volcanoNamespaces", ["alpha-vc"]),
        lambda f: f,
        "teams[0].volcanoNamespaces",
        "must be split",
    ),
    Case(
        "volcano-namespaces-on-a-kueue-only-team",
        lambda f: f.with_team("gamma", namespaces=["gamma", "gamma-vc"], volcanoNamespaces=["gamma-vc"]),
        lambda f: f.with_team("gamma", namespaces=["gamma", "gamma-vc"]),
        "teams[2].volcanoNamespaces",
        "no Volcano queue serves these namespaces",
    ),
    Case(
        "volcano-pool-without-a-node-group",
        lambda f: f.set("pools[1].nodeLabels", {"gpufleet.dev/pool": "a100"}),
        lambda f: f,
        f"pools[1].nodeLabels.{NODEGROUP}",
        "names no node group",
    ),
    Case(
        "kueue-pool-with-the-node-group-label",
        lambda f: f.set("pools[0].nodeLabels", {"gpufleet.dev/pool": "h100", NODEGROUP: "h100"}),
        lambda f: f,
        f"pools[0].nodeLabels.{NODEGROUP}",
        "counts",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_a_broken_ownership_rule_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_ownership_passes(case: Case) -> None:
    clean(case)


def test_a_team_on_both_engines_splits_its_namespaces_as_listed() -> None:
    model = fleet().model()
    alpha = model.teams[0]
    assert (kueue_namespaces(model, alpha), volcano_namespaces(model, alpha)) == (["alpha"], ["alpha-vc"])
    assert namespace_engine(model, alpha, "alpha-vc") == "volcano"


def test_a_volcano_only_team_has_all_its_namespaces_on_volcano() -> None:
    model = fleet().with_team("gamma", quota={"a100": {"nominal": 0}}, namespaces=["g1", "g2"]).model()
    gamma = model.teams[2]
    assert volcano_namespaces(model, gamma) == ["g1", "g2"] and kueue_namespaces(model, gamma) == []
