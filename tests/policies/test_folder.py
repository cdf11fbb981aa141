"""gpufleet.util.policyfolder: the pack folder ``gpufleet policy-pack DIR`` writes, which the repository's policies/ is."""

from __future__ import annotations

import sys

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


def test_by_default_the_folder_names_the_virtualenv_gpufleet_runs_in(tmp_path, capsys):
    assert run(["policy-pack", str(tmp_path / "policy")]) == 0
    settings = yaml.safe_load((tmp_path / "policy" / "PulumiPolicy.yaml").read_text())
    assert settings["runtime"]["options"]["virtualenv"] == sys.prefix
    assert f"--policy-pack {tmp_path / 'policy'}" in capsys.readouterr().out


def test_without_a_virtualenv_pulumi_runs_the_pack_with_the_python_on_path():
    assert yaml.safe_load(contents(None)["PulumiPolicy.yaml"])["runtime"] == {"name": "python"}


def test_the_pack_version_is_gpufleets():
    from gpufleet import __version__

    assert yaml.safe_load(contents("venv")["PulumiPolicy.yaml"])["version"] == __version__
