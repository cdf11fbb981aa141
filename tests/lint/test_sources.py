"""Which files the linter reads: files, directories, standard input, missing and binary files."""

from __future__ import annotations

from gpufleet.lint.sources import STDIN_NAME, collect
from tests.lint import manifests as m


def test_a_directory_is_read_recursively_for_yaml_and_json_in_sorted_order(tmp_path):
    for name in ("b/job.yaml", "a.yml", "c.json", "notes.md", ".git/x.yaml", "z/.hidden/y.yaml"):
        m.write(tmp_path, name, "{}")
    assert [s.name for s in collect([str(tmp_path)])] == [str(tmp_path / n) for n in ("a.yml", "b/job.yaml", "c.json")]


def test_dash_reads_the_standard_input_text_given():
    [source] = collect(["-"], stdin_text="kind: x\n")
    assert (source.name, source.text) == (STDIN_NAME, "kind: x\n")


def test_missing_and_binary_files_are_sources_with_an_error(tmp_path):
    binary = tmp_path / "blob.yaml"
    binary.write_bytes(b"\xff\xfe\x00bad")
    missing, broken = collect([str(tmp_path / "nope.yaml"), str(binary)])
    assert (missing.text, missing.error) == (None, "does not exist")
    assert broken.text is None and "UTF-8" in (broken.error or "")
