"""Building the check context: --config files, fleet context JSON, --fleet and --crds errors."""

from __future__ import annotations

import json

import pytest

from gpufleet.lint.context import load_config
from gpufleet.settings import load_crds, load_fleet_context
from gpufleet.yamlin.errors import ModelError
from tests.lint import manifests as m


def test_a_config_file_sets_select_ignore_options_and_relative_paths(tmp_path):
    path = m.write(
        tmp_path,
        "lint.yaml",
        "select: [GANG5]\nignore: GANG503\noptions: {gang502: {floorSeconds: 900}}\nfleetContext: ctx/fleet.json\n",
    )
    config = load_config(str(path))
    assert (config.select, config.ignore) == (("GANG5",), ("GANG503",))
    assert config.options == {"GANG502": {"floorSeconds": 900}}
    assert config.fleet_context == str(tmp_path / "ctx" / "fleet.json")


@pytest.mark.parametrize(
    "text, path",
    [
        ("selct: [GANG5]\n", "selct"),
        ("options: {GANG502: 900}\n", "options"),
        ("select: {a: 1}\n", "select"),
        ("- a\n", ""),
    ],
)
def test_a_bad_config_file_names_the_file_and_field(tmp_path, text, path):
    file = m.write(tmp_path, "lint.yaml", text)
    with pytest.raises(ModelError) as error:
        load_config(str(file))
    assert error.value.source == str(file) and error.value.issues[0].path == path


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "cannot read"),
        ("{not json", "not a JSON fleet context"),
        ("[1, 2]", "must be a JSON object"),
        (json.dumps({"version": 2}), "version 2"),
        (json.dumps({"pools": [{"name": "h100"}]}), "missing field"),
    ],
)
def test_a_bad_fleet_context_is_a_model_error_naming_the_file(tmp_path, content, message):
    file = tmp_path / "fleet.json"
    if content is not None:
        file.write_text(content)
    with pytest.raises(ModelError) as error:
        load_fleet_context(str(file))
    assert error.value.source == str(file) and message in error.value.issues[0].message


def test_crds_must_be_a_directory(tmp_path):
    with pytest.raises(ModelError):
        load_crds(str(tmp_path / "missing"))
