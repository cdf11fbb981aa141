"""The stack models in stacks/ load and validate without a single issue."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.model import load_model, parse_model
from gpufleet.model.checks import validate
from gpufleet.yamlin import yamlio

STACKS = sorted((Path(__file__).resolve().parents[2] / "stacks").glob("*.fleet.yaml"))


def test_both_stacks_exist() -> None:
    assert {p.name for p in STACKS} >= {"dev.fleet.yaml", "prod.fleet.yaml"}


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.name)
def test_a_stack_model_validates_cleanly(path: Path) -> None:
    fleet = load_model(path, validate=False)
    assert validate(fleet) == []


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.name)
def test_a_stack_model_fails_when_its_first_team_borrows_beyond_its_pools(path: Path) -> None:
    data = yamlio.load(path.read_text(encoding="utf-8"))
    team = data["teams"][0]
    pool = next(iter(team["quota"]))
    team["quota"][pool]["nominal"] = 10**9
    issues = validate(parse_model(data, str(path), validate=False))
    index = next(i for i, p in enumerate(data["pools"]) if p["name"] == pool)
    assert any(i.path == f"pools[{index}]" and f"(teams[0].quota.{pool}.nominal)" in i.message for i in issues)
