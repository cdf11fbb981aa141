"""A key written twice in a model file is an error naming both lines, never a silently dropped block."""

from __future__ import annotations

import pytest

from gpufleet.model import duplicate_keys, load_model
from gpufleet.yamlin import yamlio
from gpufleet.yamlin.errors import ModelError
from tests.model.builders import fleet


def test_a_second_teams_block_is_reported_at_its_path_with_both_lines():
    text = "a: 1\nteams:\n- name: x\nteams:\n- name: y\n"
    [issue] = duplicate_keys.check(text)
    assert issue.path == "teams" and "lines 2 and 4" in issue.message and issue.fix


@pytest.mark.parametrize(
    "text, paths",
    [
        ("pools:\n- name: a\n  nodeCount: 1\n  nodeCount: 2\n", ["pools[0].nodeCount"]),
        ("x:\n  y: 1\n  y: 2\n  z: 1\n  z: 1\n", ["x.y", "x.z"]),
        ("base: &b {a: 1}\nother:\n  <<: *b\n  <<: *b\n", []),
        ("a: 1\nb: 1\n", []),
        ("a: [1\n", []),  # a syntax error is the loader's to report
    ],
)
def test_every_duplicate_is_found_at_its_model_path(text, paths):
    assert [i.path for i in duplicate_keys.check(text)] == paths


def test_the_model_loader_refuses_a_file_with_a_duplicate_key(tmp_path):
    text = yamlio.dump(fleet().build())
    path = tmp_path / "dup.fleet.yaml"
    path.write_text(text + "teams: []\n")
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert [i.path for i in err.value.issues] == ["teams"]
