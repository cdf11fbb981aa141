"""gpufleet.util.pluginfolder: both plugin folders' settings name any virtual environment path so it reads back as written."""

from __future__ import annotations

import pytest
import yaml

from gpufleet.cli.pack_cmds import package_contents
from gpufleet.util.pluginfolder import settings_text, write_files
from gpufleet.util.policyfolder import contents as pack_contents

AWKWARD = ["/opt/envs/team: ml/venv", "/home/ci/build #42/.venv", "C:\\envs\\gpu fleet", "'quoted' \"twice\"", "yes"]


@pytest.mark.parametrize("virtualenv", AWKWARD)
@pytest.mark.parametrize(
    "folder, settings",
    [(package_contents, "PulumiPlugin.yaml"), (pack_contents, "PulumiPolicy.yaml")],
    ids=["component-package", "policy-pack"],
)
def test_a_virtualenv_path_with_yaml_syntax_in_it_reads_back_as_written(tmp_path, folder, settings, virtualenv):
    write_files(tmp_path, folder(virtualenv))
    runtime = yaml.safe_load((tmp_path / settings).read_text())["runtime"]
    assert runtime == {"name": "python", "options": {"virtualenv": virtualenv}}


def test_the_header_comes_first_and_the_fields_keep_their_order():
    text = settings_text("# written by a test\n", {"description": "a: b", "version": "1.0.0"}, None)
    assert text.startswith("# written by a test\n")
    assert list(yaml.safe_load(text)) == ["description", "version", "runtime"]
