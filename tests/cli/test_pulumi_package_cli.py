"""``gpufleet pulumi-package DIR``: the component package folder a Pulumi program of any language adds."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import yaml

from gpufleet.cli.app import run
from gpufleet.cli.pack_cmds import package_contents


def test_by_default_the_folder_names_the_virtualenv_gpufleet_runs_in_and_says_how_to_add_it(tmp_path, capsys):
    assert run(["pulumi-package", str(tmp_path / "pkg")]) == 0
    settings = yaml.safe_load((tmp_path / "pkg" / "PulumiPlugin.yaml").read_text())
    named = settings["runtime"]["options"]["virtualenv"]
    assert not named.startswith("/") and (tmp_path / "pkg" / named).resolve() == Path(sys.prefix).resolve()
    assert f"pulumi package add {tmp_path / 'pkg'}" in capsys.readouterr().out


def test_the_entry_point_serves_the_installed_component_and_nothing_else(tmp_path):
    tree = ast.parse(package_contents(None)["__main__.py"])
    imports = [(node.module, [a.name for a in node.names]) for node in tree.body if isinstance(node, ast.ImportFrom)]
    assert imports == [("gpufleet.pulumi.package", ["serve"])]
    assert ast.unparse(tree.body[-1]) == "serve()"


def test_without_a_virtualenv_pulumi_looks_for_venv_in_the_folder():
    assert yaml.safe_load(package_contents(None)["PulumiPlugin.yaml"])["runtime"] == {"name": "python"}
