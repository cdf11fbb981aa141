"""Fields the API server would silently drop, on a CRD built in the test."""

from __future__ import annotations

import pytest

from gpufleet.crdschema import CrdSet
from tests.crdschema.builders import crd, widget, widget_schema


@pytest.fixture(scope="module")
def crds() -> CrdSet:
    return CrdSet.from_documents([crd(widget_schema())])


def pruned(crds, obj) -> list[str]:
    return [issue.path for issue in crds.pruned_fields(obj)]


@pytest.mark.parametrize(
    "spec, expected",
    [
        ({"sise": 4}, ["spec.sise"]),
        ({"ports": [{"name": "a", "protocl": "UDP"}]}, ["spec.ports[0].protocl"]),
        ({"template": {"spec": {"image": "x", "imagePullPolicy": "Always"}}}, ["spec.template.spec.imagePullPolicy"]),
        ({"mode": None}, ["spec.mode"]),
    ],
)
def test_an_unknown_or_null_field_is_reported_at_its_path(crds, spec, expected):
    assert pruned(crds, widget(**spec)) == expected


def test_the_message_names_the_schema_and_the_fix_suggests_the_close_name(crds):
    [issue] = crds.pruned_fields(widget(sise=4))
    assert issue.message == "field is not in the Widget v1 schema; the API server would silently drop it"
    assert issue.fix.startswith("did you mean size?")


@pytest.mark.parametrize(
    "spec",
    [
        {"settings": {"any": {"nested": ["thing"]}}},
        {"labels": {"free": "form"}},
        {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "b"}}}},
        {"note": None},
    ],
)
def test_preserved_embedded_additional_and_nullable_fields_are_kept(crds, spec):
    assert pruned(crds, widget(**spec)) == []


def test_unknown_top_level_and_metadata_fields_are_pruned(crds):
    obj = {**widget(), "spek": {}, "metadata": {"name": "w", "labls": {}}}
    assert pruned(crds, obj) == ["metadata.labls", "spek"]


def test_unknown_metadata_of_an_embedded_resource_is_pruned(crds):
    obj = widget(template={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "label": {}}})
    assert pruned(crds, obj) == ["spec.template.metadata.label"]


def test_pruned_fields_are_not_also_schema_violations(crds):
    assert crds.validate(widget(sise="not checked")) == []


def test_defaults_are_applied_before_validation(crds):
    # minSize defaults to 1 and the CEL rule compares against it; the ports key defaults protocol to TCP.
    assert [i.path for i in crds.validate(widget(size=0))] == ["spec.size"]
    duplicate = widget(ports=[{"name": "a"}, {"name": "a", "protocol": "TCP"}])
    assert [i.path for i in crds.validate(duplicate)] == ["spec.ports[1]"]
