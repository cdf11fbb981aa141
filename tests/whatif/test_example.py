"""docs/whatif.md's worked example stays what the docs say: the dev stack with one change, and traces of it."""

from __future__ import annotations

from pathlib import Path

import yaml

from gpufleet.model import load_model
from gpufleet.whatif.trace import load_trace

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "whatif"


def test_the_new_model_is_the_dev_stack_with_alphas_borrowing_limit_on_l4_at_zero():
    base = yaml.safe_load((ROOT / "stacks" / "dev.fleet.yaml").read_text())
    new = yaml.safe_load((EXAMPLE / "dev-no-borrowing.fleet.yaml").read_text())
    alpha = next(t for t in base["teams"] if t["name"] == "alpha")
    alpha["quota"]["l4"]["borrowingLimit"] = 0
    assert new == base


def test_the_example_traces_are_valid_for_both_models():
    for model in (ROOT / "stacks" / "dev.fleet.yaml", EXAMPLE / "dev-no-borrowing.fleet.yaml"):
        fleet = load_model(model)
        for trace in sorted(EXAMPLE.glob("*.jsonl")):
            assert load_trace(trace, [fleet]).jobs
