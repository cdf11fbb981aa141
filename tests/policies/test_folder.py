"""gpufleet.util.policyfolder: the pack folder ``gpufleet policy-pack DIR`` writes, which the repository's policies/ is."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import yaml

from gpufleet.cli.app import run
from gpufleet.util.policyfolder import FILES, contents
from tests.policies.harness import PACK_DIR


@pytest.mark.parametrize("name", FILES)
def test_the_repository_pack_folder_is_what_the_command_writes_with_virtualenv_venv(name):
    assert (PACK_DIR / name).read_text() == contents("venv")[name], (
        f"policies/{name} is stale: run gpufleet policy-pack policies --virtualenv venv"
    )


def test_by_default_the_folder_names_the_virtualenv_gpufleet_runs_in_relative_to_the_folder(tmp_path, capsys):
    folder = tmp_path / "beside" / "policy"
    assert run(["policy-pack", str(folder)]) == 0
    settings = yaml.safe_load((folder / "PulumiPolicy.yaml").read_text())
    named = settings["runtime"]["options"]["virtualenv"]
    assert not os.path.isabs(named)
    assert (folder / named).resolve() == Path(sys.prefix).resolve()
    assert f"--policy-pack {folder}" in capsys.readouterr().out


@pytest.mark.parametrize("name", FILES)
def test_the_written_folder_holds_no_absolute_path(tmp_path, name, capsys):
    assert run(["policy-pack", str(tmp_path / "policy")]) == 0
    text = (tmp_path / "policy" / name).read_text()
    assert str(tmp_path) not in text
    assert not any(line.lstrip("- ").split(": ")[-1].startswith("/") for line in text.splitlines() if ": " in line)


def test_a_virtualenv_given_on_the_command_line_is_written_as_given(tmp_path, capsys):
    assert run(["policy-pack", str(tmp_path / "policy"), "--virtualenv", "venv"]) == 0
    settings = yaml.safe_load((tmp_path / "policy" / "PulumiPolicy.yaml").read_text())
    assert settings["runtime"]["options"]["virtualenv"] == "venv"


def test_without_a_virtualenv_pulumi_runs_the_pack_with_the_python_on_path():
    assert yaml.safe_load(contents(None)["PulumiPolicy.yaml"])["runtime"] == {"name": "python"}


def test_the_pack_version_is_gpufleets():
    from gpufleet import __version__

    assert yaml.safe_load(contents("venv")["PulumiPolicy.yaml"])["version"] == __version__
