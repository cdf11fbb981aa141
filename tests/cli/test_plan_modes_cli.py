"""``gpufleet plan`` on the every-mode stack prints each pool's mode and the dedicated pool's stranded GPUs."""

from __future__ import annotations

from pathlib import Path

import typer
from typer.testing import CliRunner

from gpufleet.cli import fleet_cmds

MIXED = Path(__file__).resolve().parents[2] / "stacks" / "mixed.fleet.yaml"


def test_plan_names_the_mode_of_every_pool_and_the_stranded_gpus():
    app = typer.Typer(pretty_exceptions_enable=False)
    fleet_cmds.register(app)
    result = CliRunner().invoke(app, ["plan", str(MIXED)])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    for title in (
        "pool h100 (kueue, shared)",
        "pool a100 (volcano, shared)",
        "pool l40s (coscheduling, one team)",
        "pool vault (kueue, dedicated to secure)",
    ):
        assert title in text
    assert "dedicated to team secure: 64 nvidia.com/gpu stranded" in text
