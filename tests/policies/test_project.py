"""gpufleet.policypack.project: the pack finds the previewed project's folder, wherever the pack folder sits."""

from __future__ import annotations

import pytest

from gpufleet.policypack.project import PROJECT_DIR_ENV, project_roots


def _project(folder, name="shop"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Pulumi.yaml").write_text(f"name: {name}\nruntime: python\n")
    return folder


def test_the_folder_pulumi_ran_in_is_the_project(tmp_path):
    project = _project(tmp_path / "infra")
    assert project_roots({"PWD": str(project), "PULUMI_PROJECT": "shop"}, ancestors=False) == [project]


def test_a_sub_folder_of_the_project_finds_it_above(tmp_path):
    project = _project(tmp_path / "infra")
    (project / "stacks").mkdir()
    assert project_roots({"PWD": str(project / "stacks"), "PULUMI_PROJECT": "shop"}, ancestors=False) == [project]


def test_a_pulumi_yaml_of_another_project_is_passed_over(tmp_path):
    outer = _project(tmp_path, "shop")
    _project(tmp_path / "other", "other")
    found = project_roots({"PWD": str(tmp_path / "other"), "PULUMI_PROJECT": "shop"}, ancestors=False)
    assert found == [outer]


def test_the_explicit_setting_wins(tmp_path):
    _project(tmp_path / "infra")
    env = {"PWD": str(tmp_path / "infra"), PROJECT_DIR_ENV: str(tmp_path / "elsewhere")}
    assert project_roots(env, ancestors=False) == [tmp_path / "elsewhere"]


@pytest.mark.parametrize("env", [{}, {"PULUMI_PROJECT": "shop"}])
def test_no_project_anywhere_is_no_folder(tmp_path, env):
    assert project_roots({**env, "PWD": str(tmp_path)}, ancestors=False) == []


def test_an_ancestor_process_working_in_the_project_is_found(tmp_path, monkeypatch):
    import os

    project = _project(tmp_path / "infra", "gpufleet-ancestor-test")
    monkeypatch.chdir(project)
    import subprocess
    import sys

    code = "from gpufleet.policypack.project import project_roots; print(project_roots({'PULUMI_PROJECT': 'gpufleet-ancestor-test'}))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True, env={**os.environ}
    ).stdout
    assert str(project) in out  # the child runs in tmp_path; its parent (this test) works in the project
