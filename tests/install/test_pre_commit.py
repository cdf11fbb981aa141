"""The pre-commit hook works in a fresh repository that has never seen gpufleet (`pre-commit try-repo`, offline).

pre-commit (pinned in requirements-dev.txt) clones this checkout, builds the hook's own
virtualenv and installs gpufleet into it with pip. Offline, pip may not fetch anything:
the package is built without build isolation and without dependencies, and the hook
finds its dependencies through PYTHONPATH (this venv's site-packages); gpufleet itself
comes from the hook's virtualenv (a .pth-based editable install is not on PYTHONPATH).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.install.checkout import BAD, GOOD, copy_sources

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=cwd, check=True, capture_output=True
    )


def _hook_repo(tmp: Path) -> Path:
    """The package as a git repository with one commit (what a `repo:` URL points at)."""
    repo = copy_sources(tmp / "gpufleet-src")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "gpufleet")
    return repo


def _scratch(tmp: Path) -> Path:
    work = tmp / "work"
    (work / "jobs").mkdir(parents=True)
    (work / "jobs" / "good.yaml").write_text(GOOD)
    (work / "jobs" / "bad.yaml").write_text(BAD)
    (work / "README.md").write_text("not yaml: the hook's `types: [yaml]` skips it\n")
    _git(work, "init", "-q")
    _git(work, "add", "-A")
    return work


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUAL_ENV"))}
    env.update(
        PRE_COMMIT_HOME=str(tmp / "pre-commit-home"),
        PIP_NO_INDEX="1",
        PIP_NO_DEPS="1",
        PIP_NO_BUILD_ISOLATION="0",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PYTHONPATH=sysconfig.get_paths()["purelib"],
    )
    return env


@pytest.fixture(scope="module")
def repos(tmp_path_factory) -> tuple[Path, Path, dict[str, str]]:
    tmp = tmp_path_factory.mktemp("precommit")
    return _hook_repo(tmp), _scratch(tmp), _env(tmp)


def _try_repo(repos, *files: str) -> subprocess.CompletedProcess[str]:
    hook_repo, work, env = repos
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), "gpufleet-lint", "--files", *files],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_the_hook_passes_a_good_manifest(repos):
    done = _try_repo(repos, "jobs/good.yaml", "README.md")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Passed" in done.stdout


def test_the_hook_fails_a_bad_manifest_naming_the_rule_and_the_file(repos):
    done = _try_repo(repos, "jobs/good.yaml", "jobs/bad.yaml")
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Failed" in done.stdout and "GANG106" in done.stdout and "jobs/bad.yaml" in done.stdout
