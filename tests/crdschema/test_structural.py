"""openAPIV3Schema validation in the Kubernetes dialect, on a CRD built in the test."""

from __future__ import annotations

import pytest

from gpufleet.crdschema import CrdSet
from tests.crdschema.builders import crd, widget, widget_schema, with_metadata


@pytest.fixture(scope="module")
def crds() -> CrdSet:
    return CrdSet.from_documents([crd(widget_schema()), crd(widget_schema(), kind="Gadget", scope="Cluster")])


def paths(issues) -> list[str]:
    return [issue.path for issue in issues]


def test_a_valid_widget_has_no_issues(crds):
    obj = widget(
        quota="10Gi",
        mode="Safe",
        tags=["a", "b"],
        ports=[{"name": "http", "port": 80}],
        note=None,
        startedAt="2026-01-31T12:00:00Z",
        settings={"anything": {"goes": 1}},
        labels={"a": "b"},
        template={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"image": "x"}},
    )
    assert crds.validate(obj) == []


@pytest.mark.parametrize(
    "spec, path, words",
    [
        ({"size": "3"}, "spec.size", "must be of type integer, got string"),
        ({"size": 2.5}, "spec.size", "must be of type integer, got number"),
        ({"size": True}, "spec.size", "must be of type integer, got boolean"),
        ({"size": -1}, "spec.size", "less than the minimum"),
        ({"quota": 1.5}, "spec.quota", "integer or a string"),
        ({"quota": ["1"]}, "spec.quota", "integer or a string"),
        ({"mode": "Slow"}, "spec.mode", "is not one of ['Fast', 'Safe']"),
        ({"startedAt": "yesterday"}, "spec.startedAt", "not a valid date-time"),
        ({"tags": ["a", "a"]}, "spec.tags[1]", "duplicate entry"),
        ({"ports": [{"name": "http"}, {"name": "http", "protocol": "TCP"}]}, "spec.ports[1]", "duplicate entry"),
        ({"ports": [{"port": 80}]}, "spec.ports[0].name", "required field is missing"),
        ({"labels": {"a": 1}}, "spec.labels.a", "must be of type string"),
    ],
)
def test_a_schema_violation_is_reported_at_its_exact_path(crds, spec, path, words):
    issues = crds.validate(widget(**spec))
    assert [i.path for i in issues if words in i.message] == [path], issues


def test_an_integral_float_is_an_integer_as_pulumi_sends_it(crds):
    assert crds.validate(widget(size=16.0, quota=8.0)) == []


@pytest.mark.parametrize(
    "ports",
    [
        [{"name": "http"}, {"name": "http", "protocol": "UDP"}],
        [{"name": "http"}, {"name": "grpc"}],
    ],
)
def test_map_list_entries_with_different_keys_are_allowed(crds, ports):
    assert crds.validate(widget(ports=ports)) == []


def test_a_missing_required_field_is_reported_with_the_field_in_the_path(crds):
    obj = widget()
    del obj["spec"]["size"]
    assert ("spec.size", "required field is missing") in [(i.path, i.message) for i in crds.validate(obj)]


def test_cel_rules_are_not_run_when_a_type_is_wrong_as_on_the_api_server(crds):
    issues = crds.validate(widget(size="3"))
    assert [(i.path, "not checked" in i.message) for i in issues] == [("spec.size", False), ("(root)", True)]


def test_every_problem_is_reported_not_only_the_first(crds):
    issues = crds.validate(widget(size="x", mode="Slow", tags=["a", "a"]))
    assert sorted(paths(issues)) == ["(root)", "spec.mode", "spec.size", "spec.tags[1]"]


@pytest.mark.parametrize(
    "metadata, path",
    [
        ({"namespace": "team-a"}, "metadata.name"),
        ({"name": "Team_A", "namespace": "team-a"}, "metadata.name"),
        ({"name": "a" * 254, "namespace": "team-a"}, "metadata.name"),
        ({"generateName": "Bad_", "namespace": "team-a"}, "metadata.generateName"),
        ({"name": "w", "namespace": "Team-A"}, "metadata.namespace"),
        ({"name": "w", "labels": {"bad key!": "x"}}, "metadata.labels[bad key!]"),
        ({"name": "w", "labels": {"team": "-x-"}}, "metadata.labels[team]"),
    ],
)
def test_bad_metadata_is_reported(crds, metadata, path):
    assert paths(crds.validate(with_metadata(widget(), **metadata))) == [path]


@pytest.mark.parametrize(
    "metadata", [{"name": "a.b-c"}, {"generateName": "job-"}, {"name": "w", "labels": {"x.io/team": "a_b"}}]
)
def test_good_metadata_passes(crds, metadata):
    assert crds.validate(with_metadata(widget(), **metadata)) == []


def test_a_namespace_on_a_cluster_scoped_kind_is_an_error(crds):
    gadget = {**widget(), "kind": "Gadget"}
    issues = crds.validate(gadget)
    assert paths(issues) == ["metadata.namespace"]
    assert "cluster-scoped" in issues[0].message


def test_unknown_kinds_are_not_known_and_validate_to_nothing(crds):
    other = {**widget(), "kind": "Sprocket", "spec": {"size": "not even an int"}}
    assert (crds.knows(other), crds.validate(other), crds.pruned_fields(other)) == (False, [], [])


@pytest.mark.parametrize("api_version", ["example.gpufleet.dev/v2", "other.dev/v1", "v1", None])
def test_an_object_of_another_group_or_version_is_not_known(crds, api_version):
    assert not crds.knows({**widget(), "apiVersion": api_version})


def test_validation_does_not_modify_the_object(crds):
    obj = widget(ports=[{"name": "http"}], size=16.0, bogus=1)
    before = repr(obj)
    crds.validate(obj)
    crds.pruned_fields(obj)
    assert repr(obj) == before
