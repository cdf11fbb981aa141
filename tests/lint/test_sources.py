"""Which files the linter reads: files, directories, standard input, missing and binary files."""

from __future__ import annotations

from pathlib import Path

from gpufleet.lint.sources import STDIN_NAME, SUFFIXES, collect, stream
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


def _rglob_order(root: Path) -> list[str]:
    """What the directory walk must give: pathlib's sorted ``rglob`` filtered as before."""
    return [
        str(p)
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix in SUFFIXES and not any(part.startswith(".") for part in p.relative_to(root).parts)
    ]


def test_the_directory_walk_gives_pathlibs_order_and_choice_of_files(tmp_path, monkeypatch):
    names = (
        "a/x.yaml",
        "a-b/x.yaml",
        "a.b/y.yml",
        "a0.json",
        "A/z.yaml",
        "dir.yaml/in.yaml",
        "deep/er/st/q.yaml",
        ".hid/w.yaml",
        "v/.h.yaml",
        "n.yaml.bak",
        "m.JSON",
        "k.yaml",
    )
    for name in names:
        m.write(tmp_path, name, "{}")
    (tmp_path / "link").symlink_to(tmp_path / "a", target_is_directory=True)  # not followed, as rglob
    (tmp_path / "file-link.yaml").symlink_to(tmp_path / "k.yaml")
    (tmp_path / "broken.yaml").symlink_to(tmp_path / "nowhere.yaml")
    assert [s.name for s in collect([str(tmp_path)])] == _rglob_order(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert [s.name for s in collect(["."])] == _rglob_order(Path("."))


def test_stream_reads_the_same_sources_one_at_a_time(tmp_path):
    for name in ("b/job.yaml", "a.yml"):
        m.write(tmp_path, name, "kind: x\n")
    streamed = stream([str(tmp_path), "-"], stdin_text="kind: y\n")
    assert next(streamed).name == str(tmp_path / "a.yml")
    assert [s.name for s in streamed] == [str(tmp_path / "b/job.yaml"), STDIN_NAME]
