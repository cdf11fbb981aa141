"""The fleet context schema (issue 11): what render_context writes validates; wrong shapes do not."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from gpufleet.fleetctx import contextschema
from gpufleet.model.loader import load_model
from gpufleet.render.context import render_context

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rendered():
    return render_context(load_model(REPO / "stacks" / "prod.fleet.yaml"))


def test_every_rendered_stack_context_validates():
    for stack in ("dev", "prod"):
        assert contextschema.validate(render_context(load_model(REPO / "stacks" / f"{stack}.fleet.yaml"))) == []


def mutate(doc, path, value):
    doc = copy.deepcopy(doc)
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


@pytest.mark.parametrize(
    "path, value, where",
    [
        (("teams", 0, "namespaces"), "alpha", "teams[0].namespaces"),
        (("teams", 0, "namespaces"), [], "teams[0].namespaces"),
        (("teams", 0, "namespaces"), ["Not A Namespace"], "teams[0].namespaces[0]"),
        (("pools", 0, "nodeCount"), "4", "pools[0].nodeCount"),
        (("pools", 0, "system"), "slurm", "pools[0].system"),
        (("pools", 0, "allocatable", "cpu"), "1e99999", "pools[0].allocatable.cpu"),
        (("version",), 2, "version"),
        (("teams",), [], "teams"),
        (("kubernetesVersion",), "v1.37", "kubernetesVersion"),
        (("workloadGates",), "GenericWorkload", "workloadGates"),
        (("pools", 0, "placement"), "gang", "pools[0].placement"),
    ],
)
def test_a_wrong_shape_is_refused_at_its_path(rendered, path, value, where):
    issues = contextschema.validate(mutate(rendered, path, value))
    assert any(i.path == where for i in issues), issues


def test_an_empty_object_is_refused():
    assert {i.path for i in contextschema.validate({})} >= {"version", "fleet", "teams", "pools"}


def test_a_native_pool_and_the_cluster_it_needs_validate(rendered):
    native = mutate(
        mutate(rendered, ("pools", 0, "system"), "native"), ("workloadGates",), ["GenericWorkload", "WorkloadWithJob"]
    )
    assert contextschema.validate(mutate(native, ("pools", 1, "placement"), "native")) == []


def test_unknown_keys_are_ignored_for_rolling_upgrades(rendered):
    assert contextschema.validate({**rendered, "addedLater": {"x": 1}}) == []


@pytest.mark.parametrize("stack", ["dev", "prod", "mixed"])
def test_every_rendered_stack_context_is_valid(stack) -> None:
    assert contextschema.validate(render_context(load_model(REPO / "stacks" / f"{stack}.fleet.yaml"))) == []


def test_a_volcano_namespace_the_team_does_not_list_is_refused() -> None:
    data = render_context(load_model(REPO / "stacks" / "dev.fleet.yaml"))
    data["teams"][0]["volcanoNamespaces"] = ["elsewhere"]
    assert [i.path for i in contextschema.validate(data)] == ["teams[0].volcanoNamespaces[0]"]
