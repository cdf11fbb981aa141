"""Which model a command uses without a MODEL argument: one rule for every command (README).

The argument, else ``$GPUFLEET_MODEL``, else the ``gpufleet:model`` of the nearest
``Pulumi.yaml``'s stack (``$GPUFLEET_STACK``, or the project's only stack), else exit 2.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpufleet.cli.app import run

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "stacks" / "dev.fleet.yaml"
MODEL_COMMANDS = [["validate"], ["plan"], ["advise"], ["render", "--out", "OUT"]]


def project(tmp_path: Path, stacks: tuple[str, ...]) -> Path:
    """A Pulumi project like this repository's: stack files in stacks/, each naming its model."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "Pulumi.yaml").write_text("name: fleet\nruntime: python\nstackConfigDir: stacks\n")
    (tmp_path / "stacks").mkdir()
    for stack in stacks:
        shutil.copy(DEV, tmp_path / "stacks" / f"{stack}.fleet.yaml")
        (tmp_path / "stacks" / f"Pulumi.{stack}.yaml").write_text(
            f"config:\n  gpufleet:model: stacks/{stack}.fleet.yaml\n"
        )
    return tmp_path


def cli(capsys, words: list[str], tmp_path: Path) -> tuple[int, str, str]:
    code = run([str(tmp_path / "out") if w == "OUT" else w for w in words])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(autouse=True)
def no_env(monkeypatch):
    monkeypatch.delenv("GPUFLEET_MODEL", raising=False)
    monkeypatch.delenv("GPUFLEET_STACK", raising=False)


@pytest.mark.parametrize("words", MODEL_COMMANDS, ids=lambda w: w[0])
def test_the_model_comes_from_the_environment_first(words, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GPUFLEET_MODEL", str(DEV))
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, words, tmp_path)
    assert code == 0, err
    assert str(DEV) in out or words[0] == "advise"


@pytest.mark.parametrize("words", MODEL_COMMANDS, ids=lambda w: w[0])
def test_then_from_the_only_stack_of_the_nearest_pulumi_project_even_from_a_subfolder(
    words, tmp_path, monkeypatch, capsys
):
    root = project(tmp_path / "repo", ("dev",))
    (root / "deep" / "er").mkdir(parents=True)
    monkeypatch.chdir(root / "deep" / "er")
    code, _, err = cli(capsys, words, tmp_path)
    assert code == 0, err


def test_a_project_with_several_stacks_needs_gpufleet_stack(tmp_path, monkeypatch, capsys):
    root = project(tmp_path, ("dev", "prod"))
    monkeypatch.chdir(root)
    code, out, err = cli(capsys, ["plan"], tmp_path)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "dev, prod" in err and "GPUFLEET_STACK" in err and "GPUFLEET_MODEL" in err
    monkeypatch.setenv("GPUFLEET_STACK", "prod")
    code, out, err = cli(capsys, ["validate"], tmp_path)
    assert code == 0 and out.startswith(f"{root / 'stacks' / 'prod.fleet.yaml'}: valid"), err


@pytest.mark.parametrize("words", [*MODEL_COMMANDS, ["diff", "--git", "HEAD"]], ids=lambda w: w[0])
def test_without_any_of_them_every_command_gives_the_same_usage_error(words, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, words, tmp_path)
    assert code == 2 and out == ""
    assert err.strip().endswith(
        "no fleet model given (fix: pass the fleet model file, e.g. stacks/prod.fleet.yaml, "
        "or set GPUFLEET_MODEL, or run inside a Pulumi project whose stack sets gpufleet:model)"
    )


def test_a_stack_without_a_model_setting_says_how_to_set_it(tmp_path, monkeypatch, capsys):
    root = project(tmp_path, ("dev",))
    (root / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  gpufleet:certManager: false\n")
    monkeypatch.chdir(root)
    code, _, err = cli(capsys, ["validate"], tmp_path)
    assert code == 2 and "pulumi config set -s dev gpufleet:model" in err


@pytest.mark.parametrize("stacks", [("dev",), ("dev", "prod")], ids=["one stack", "two stacks"])
@pytest.mark.parametrize("words", [*MODEL_COMMANDS, ["diff", "--git", "HEAD"]], ids=lambda w: w[0])
def test_an_unknown_stack_name_is_one_line_naming_the_stacks_that_exist(words, stacks, tmp_path, monkeypatch, capsys):
    root = project(tmp_path, stacks)
    monkeypatch.chdir(root)
    monkeypatch.setenv("GPUFLEET_STACK", "staging")
    code, out, err = cli(capsys, words, tmp_path)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert "no stack 'staging'" in err and f"only {', '.join(stacks)} " in err and "fix: set GPUFLEET_STACK" in err
    assert "cannot be read" not in err
