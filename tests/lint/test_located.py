"""Placing a finding at its file and line keeps every other fact the finding carries (gpufleet.lint.located)."""

from __future__ import annotations

import dataclasses

import pytest

from gpufleet.kubetypes.fieldpath import ROOT
from gpufleet.lint.loader import Loaded
from gpufleet.lint.located import placed
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
