"""The engines' manifests from the Go module cache are parsed once per process with libyaml, and every caller
gets its own copy to change (the volcano install manifest is 1 MB: PyYAML's pure-Python loader took 12 s a read)."""

from __future__ import annotations

import yaml

from gpufleet.sandbox import modfiles

TEXT = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: a}
data: {on: yes, mode: 0755}
---
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b}
"""


def test_a_module_file_reads_as_pyyaml_safe_load_reads_it_without_empty_documents(tmp_path):
    path = tmp_path / "install.yaml"
    path.write_text(TEXT)
    assert modfiles.documents(path) == [d for d in yaml.safe_load_all(TEXT) if d]


def test_a_caller_changing_its_documents_leaves_the_next_callers_untouched(tmp_path):
    path = tmp_path / "install.yaml"
    path.write_text(TEXT)
    mine = modfiles.documents(path)
    mine[0]["metadata"] = {"name": "changed"}
    mine.pop()
    assert [d["metadata"]["name"] for d in modfiles.documents(path)] == ["a", "b"]


def test_a_file_is_parsed_once_while_it_is_unchanged_and_again_once_it_changes(tmp_path, monkeypatch):
    path = tmp_path / "install.yaml"
    path.write_text(TEXT)
    parsed = []
    real = modfiles._parse
    monkeypatch.setattr(modfiles, "_parse", lambda text: parsed.append(text) or real(text))
    modfiles.documents(path)
    modfiles.documents(path)
    assert len(parsed) == 1
    path.write_text(TEXT.replace("name: b", "name: bb"))
    assert modfiles.documents(path)[1]["metadata"]["name"] == "bb"
    assert len(parsed) == 2
