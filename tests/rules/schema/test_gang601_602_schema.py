"""GANG601 and GANG602 against a small real CRD (loaded with gpufleet.crdschema)."""

from __future__ import annotations

import pytest

from gpufleet.crdschema import CrdSet
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "trainings.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"kind": "Training", "plural": "trainings", "singular": "training", "listKind": "TrainingList"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "apiVersion": {"type": "string"},
                            "kind": {"type": "string"},
                            "metadata": {"type": "object"},
                            "spec": {"type": "object", "properties": {"workers": {"type": "integer", "minimum": 1}}},
                        },
                    }
                },
            }
        ],
    },
}


def training(**spec) -> dict:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Training",
        "metadata": {"name": "t", "namespace": "research"},
        "spec": spec,
    }


@pytest.fixture(scope="module")
def ctx() -> CheckContext:
    return CheckContext(crds=CrdSet.from_documents([CRD]))


@pytest.mark.parametrize(
    "spec, expected",
    [
        ({"workers": 4}, []),
        ({"workers": 0}, [("GANG601", "spec.workers")]),
        ({"workers": "four"}, [("GANG601", "spec.workers")]),
        ({"workers": 4, "wokers": 4}, [("GANG602", "spec.wokers")]),
    ],
)
def test_schema_violations_and_pruned_fields_are_reported_once_each(ctx, spec, expected):
    found = engine.check_object(training(**spec), ctx, select=["GANG6"])
    assert [(f.code, f.path) for f in found] == expected


def test_without_crds_or_for_unknown_kinds_the_schema_rules_stay_quiet(ctx):
    assert engine.check_object(training(workers="four"), select=["GANG6"]) == []
    other = {"apiVersion": "example.com/v2", "kind": "Training", "metadata": {"name": "x"}, "spec": {"workers": "x"}}
    assert engine.check_object(other, ctx, select=["GANG6"]) == []
