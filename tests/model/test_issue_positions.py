"""A model issue names the file, line and column its path is written at (``file:line:column: path: message``).

Editors and CI annotations read ``file:line:column``; the loader finds it by walking the
issue's path through the YAML nodes (gpufleet.yamlin.marks). A field to add points at the
mapping that lacks it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.model import load_model
from gpufleet.yamlin.errors import ModelError

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "stacks" / "dev.fleet.yaml"


def issues_of(path: Path) -> list[str]:
    with pytest.raises(ModelError) as caught:
        load_model(path)
    return caught.value.lines()


def edited(tmp_path: Path, old: str, new: str) -> tuple[Path, int, int]:
    """dev.fleet.yaml with ``old`` replaced by ``new``, and the 1-based line and column where ``new`` starts."""
    text = DEV.read_text()
    assert text.count(old) == 1, old
    start = text.index(old)
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    path = tmp_path / "dev.fleet.yaml"
    path.write_text(text.replace(old, new))
    return path, line, column


@pytest.mark.parametrize(
    "old, new, wanted",
    [
        (
            "coldStartBudget: 6m",
            "coldStartBudgt: 6m",
            "pools[0].coldStartBudgt: unknown field",
        ),  # a misspelt key: at the key
        (
            "borrowingLimit: 8}",
            "borrowingLimt: 8}",
            "teams[0].quota.l4.borrowingLimt: unknown field",
        ),  # in a flow mapping
        (
            "nominal: 16, borrowingLimit: 8}",
            "nominal: 1.5, borrowingLimit: 8}",
            "teams[0].quota.l4.nominal:",
        ),  # a bad value
    ],
)
def test_an_unknown_field_is_named_at_its_line_and_column(old, new, wanted, tmp_path):
    path, line, column = edited(tmp_path, old, new)
    lines = issues_of(path)
    assert any(issue.startswith(f"{path}:{line}:{column}: ") and wanted in issue for issue in lines), lines


def test_every_issue_at_a_field_has_a_line_and_column(tmp_path):
    path, _, _ = edited(tmp_path, "- name: dev\n", "- name: nowhere\n")  # the teams' cohort: dev is now unknown
    lines = issues_of(path)
    assert lines and all(
        issue.startswith(f"{path}:") and issue.split(":")[1].isdigit() and issue.split(":")[2].isdigit()
        for issue in lines
    ), lines
