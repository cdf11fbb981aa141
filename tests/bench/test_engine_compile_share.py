"""bench/engine_compile_share.py: a package is compiled once per action, so engines share it only when its closure is the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.loadbench import load

M = load("engine_compile_share")


def package(tmp_path: Path, path: str, module: str, version: str, size: int, imports: tuple[str, ...] = ()) -> dict:
    """A ``go list -json`` record of ``path`` in ``module@version`` with ``size`` bytes of Go source."""
    folder = tmp_path / module / version / path.replace("/", "_")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.go").write_text("x" * size)
    return {
        "ImportPath": path,
        "Module": {"Path": module, "Version": version},
        "Dir": str(folder),
        "GoFiles": ["a.go"],
        "Imports": list(imports),
    }


def engine(tmp_path: Path, api: str, machinery: str) -> dict[str, dict]:
    """An engine whose binary needs k8s.io/api at ``api``, which imports apimachinery at ``machinery``."""
    records = [
        package(tmp_path, "k8s.io/apimachinery/pkg", "k8s.io/apimachinery", machinery, 100),
        package(tmp_path, "k8s.io/api/core", "k8s.io/api", api, 1000, ("k8s.io/apimachinery/pkg",)),
    ]
    return {r["ImportPath"]: r for r in records}


@pytest.mark.parametrize(
    ("second", "compiled_bytes"),
    [
        (("v0.36.2", "v0.36.2"), 1100),  # the same closure: compiled once for both engines
        (("v0.36.2", "v0.36.3"), 2200),  # the same api version on another apimachinery: both compiled again
        (("v0.36.3", "v0.36.2"), 2100),  # another api version: only api compiled again
    ],
)
def test_engines_share_a_compiled_package_only_when_its_whole_closure_is_the_same(tmp_path, second, compiled_bytes):
    lists = {"a": engine(tmp_path, "v0.36.2", "v0.36.2"), "b": engine(tmp_path, *second)}
    assert sum(size for _, _, size in M.compiled(lists, []).values()) == compiled_bytes


def test_one_build_list_for_a_group_compiles_each_package_once_at_the_newest_version(tmp_path):
    lists = {"a": engine(tmp_path, "v0.36.2", "v0.36.2"), "b": engine(tmp_path, "v0.36.3", "v0.36.10")}
    acts = M.compiled(lists, [["a", "b"]])
    assert sorted(at for _, at, _ in acts.values()) == ["k8s.io/api@v0.36.3", "k8s.io/apimachinery@v0.36.10"]


def test_a_replace_directive_names_the_version_compiled():
    record = {
        "ImportPath": "k8s.io/api/core",
        "Module": {"Path": "k8s.io/api", "Version": "v0.34.7", "Replace": {"Path": "k8s.io/api", "Version": "v0.34.4"}},
    }
    assert M.version(record, {}) == "v0.34.4"


def test_tools_are_read_from_both_forms_of_the_tool_directive(tmp_path, monkeypatch):
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "go.mod").write_text("module x\n\ntool (\n\ta/cmd/one\n\tb/cmd/two\n)\n\ntool c/cmd/three\n")
    monkeypatch.setattr(M, "ENGINES", tmp_path)
    assert M.tools("e") == ["a/cmd/one", "b/cmd/two", "c/cmd/three"]
