"""The static checks scripts/test.sh runs (mypy, ruff) are configured as the project says.

mypy is strict on the core (model, render, rules, kubetypes) and lenient on the adapters; the
repository's own pre-commit hooks run the same commands as the test command. The whole-tree runs
themselves are in scripts/test.sh (a failing one stops the run); these tests pin the configuration.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
UNTYPED = "def total(values):\n    return sum(values)\n"
CORE = ("model", "render", "rules", "kubetypes")


def _mypy(tmp_path: Path, package: str) -> subprocess.CompletedProcess[str]:
    """mypy, with the project's configuration, on one untyped module placed in ``gpufleet.<package>``."""
    folder = tmp_path / "gpufleet" / package
    folder.mkdir(parents=True)
    (tmp_path / "gpufleet" / "__init__.py").write_text("")
    (folder / "__init__.py").write_text("")
    (folder / "scratch.py").write_text(UNTYPED)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "cache"),
            f"gpufleet/{package}/scratch.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("package", CORE)
def test_an_untyped_function_in_the_core_is_a_type_error(tmp_path, package):
    done = _mypy(tmp_path, package)
    assert done.returncode == 1 and "no-untyped-def" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("package", ["cli"])
def test_an_adapter_may_leave_a_function_untyped(tmp_path, package):
    done = _mypy(tmp_path, package)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_core_package_has_the_strict_flags():
    import tomllib

    overrides = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["overrides"]
    strict = next(o for o in overrides if o.get("disallow_untyped_defs"))
    assert sorted(strict["module"]) == sorted(f"gpufleet.{p}.*" for p in CORE)


def test_the_repositorys_pre_commit_hooks_run_what_the_test_command_runs():
    script = (ROOT / "scripts" / "test.sh").read_text()
    hooks = [
        h for repo in yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())["repos"] for h in repo["hooks"]
    ]
    tools = {h["entry"].split()[0] + " " + (h["entry"].split() + [""])[1] for h in hooks}
    assert tools == {".venv/bin/ruff check", ".venv/bin/ruff format", ".venv/bin/mypy ", ".venv/bin/lint-imports "}
    for tool in tools:
        assert tool.strip() in script, f"{tool.strip()} is a pre-commit hook but scripts/test.sh does not run it"


IGNORE = re.compile(r"#\s*type:\s*ignore(\[[^\]]*\])?(?P<rest>.*)$")


@pytest.mark.parametrize(
    ("line", "reasoned"),
    [
        ("x = f()  # type: ignore[misc]  # the base is chosen at import time", True),
        ("x = f()  # type: ignore[misc]", False),
        ("x = f()  # type: ignore", False),
        ("x = f()  # type: ignore  # untyped library", True),
    ],
)
def test_a_type_ignore_is_reasoned_only_with_a_comment_after_it(line, reasoned):
    assert _reasoned(line) is reasoned


def _reasoned(line: str) -> bool:
    found = IGNORE.search(line)
    return found is None or found.group("rest").strip().startswith("#")


def test_every_type_ignore_in_the_checked_code_says_why():
    """Issue 36: each remaining ``# type: ignore`` keeps its reason beside it."""
    bare = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("gpufleet", "policies")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if not _reasoned(line)
    ]
    assert not bare, "a '# type: ignore[...]' without '# why' after it: " + ", ".join(bare)
