"""Placing a finding at its file and line keeps every other fact the finding carries, and a load problem names its
object as the engine names any object (gpufleet.lint.located)."""

from __future__ import annotations

import dataclasses

import pytest

from gpufleet.kubetypes.fieldpath import ROOT
from gpufleet.lint.loader import Loaded, Problem
from gpufleet.lint.located import placed, problem_finding
from gpufleet.rules import registry
from gpufleet.rules.api import Finding
from tests.rules.builders import finding

FINDING = dataclasses.replace(
    finding(path=ROOT.child("spec", "nodeName")), waived=True, waiver_reason="r", internal="Traceback", waivable=False
)
ITEM = Loaded(obj={}, file="pods.yaml", line=3, prefix=ROOT.child("items").index(1))


def test_a_placed_finding_is_the_same_finding_at_the_item_s_file_and_line():
    out = placed(FINDING, ITEM, 7)
    moved = {"path": ITEM.prefix + FINDING.path, "file": "pods.yaml", "line": 7}
    assert {f.name: getattr(out, f.name) for f in dataclasses.fields(Finding)} == {
        f.name: moved.get(f.name, getattr(FINDING, f.name)) for f in dataclasses.fields(Finding)
    }


@pytest.mark.parametrize("line, expected", [(None, 3), (9, 9)])
def test_a_finding_without_a_line_of_its_own_stands_at_its_object_s(line, expected):
    assert placed(FINDING, ITEM, line).line == expected


LIST = {"apiVersion": "v1", "kind": "List", "metadata": {"namespace": "ml", "generateName": "batch-"}, "items": [3]}
PROBLEM = Problem(
    "list.yaml",
    4,
    "items[0]: not an object",
    "give the item an apiVersion and kind",
    ROOT.child("items").index(0),
    LIST,
)


def test_a_load_problem_s_finding_carries_every_fact_of_the_problem():
    found, rule = problem_finding(PROBLEM), registry.get("GANG000")
    assert (found.code, found.name, found.severity, found.path, found.message, found.fix, found.file, found.line) == (
        rule.code,
        rule.name,
        rule.severity,
        PROBLEM.path,
        PROBLEM.message,
        PROBLEM.fix,
        "list.yaml",
        4,
    )
    assert not found.waived and found.internal is None


def test_a_load_problem_names_its_list_as_every_finding_names_an_object_the_api_server_has_not_named_yet():
    found = problem_finding(PROBLEM)
    assert (found.api_version, found.kind, found.namespace, found.object_name) == ("v1", "List", "ml", "batch-")
