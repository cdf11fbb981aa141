"""Tables piped or in CI never cut a value: full width without ``COLUMNS``, folded cells with it (gpufleet.cli.console).

``plan`` and ``diff`` run through the CLI with standard output captured (not a terminal) on a
model whose team and namespace names are long; the output has no "…", and each value is
there in full.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpufleet.cli.app import run

ROOT = Path(__file__).resolve().parents[2]
PROD = ROOT / "stacks" / "prod.fleet.yaml"
LONG = "foundation-models-long-context-pretraining"  # a team and namespace name wider than any default column
WARNING = (
    "the limits are first come, first served within the cohort's unused quota "
    "(Kueue never admits beyond the cohort's total)"
)


def with_a_long_team(tmp_path: Path) -> Path:
    data = yaml.safe_load(PROD.read_text())
    data["cohorts"][0]["quota"]["h100"]["nominal"] -= 256  # room for the new team in the pool
    data["teams"].append(
        {"name": LONG, "namespaces": [LONG], "cohort": "ml", "quota": {"h100": {"nominal": 256, "borrowingLimit": 256}}}
    )
    path = tmp_path / "long.fleet.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def output(argv: list[str], capsys) -> str:
    run(argv)
    out = capsys.readouterr().out
    assert out, argv
    return out


COMMANDS = {
    "plan": lambda long: ["plan", str(long)],
    "diff": lambda long: ["diff", str(PROD), str(long)],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_piped_table_without_columns_is_as_wide_as_its_values(command, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    out = output(COMMANDS[command](with_a_long_team(tmp_path)), capsys)
    assert "…" not in out
    assert any(f"│ {LONG} " in line for line in out.splitlines()), out  # the name whole, in one cell
    if command == "plan":
        assert any(WARNING in line for line in out.splitlines()), out  # the warning not wrapped mid-sentence
    else:
        assert f"│ {LONG}/{LONG} " in out and "spec.resourceGroups" in out, out  # the LocalQueue, the Cohort's field


@pytest.mark.parametrize("columns", [60, 220])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_piped_table_honours_columns_and_folds_instead_of_cutting(command, columns, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(columns))
    out = output(COMMANDS[command](with_a_long_team(tmp_path)), capsys)
    lines = out.splitlines()
    assert "…" not in out
    assert max(len(line.rstrip()) for line in lines) <= columns
    cells = "".join(c.strip() for line in lines for c in line.split("│")[1:2])  # the first column, folded lines joined
    assert LONG in cells, out
