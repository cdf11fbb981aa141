"""Text that goes stale as the project grows: the hook's rule range, the declared pytest markers, skip reasons."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import pytest
import yaml

from gpufleet.rules import registry
from tests import conftest
from tests.conftest import REPO, shared_path


def test_the_pre_commit_hook_names_the_range_of_rules_there_are():
    [hook] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    codes = list(registry.REGISTRY)
    assert f"({codes[0]}-{codes[-1]})" in hook["description"]


def run_pytest(*args: str, env: dict | None = None) -> str:
    import os

    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *args],
        cwd=REPO,
        text=True,
        capture_output=True,
        check=False,
        env={**os.environ, **(env or {})},
    )
    return done.stdout + done.stderr


def test_every_declared_pytest_marker_is_used():
    markers = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    for name in (m.split(":")[0] for m in markers):
        out = run_pytest(
            "--collect-only", "-m", name, "tests/crdschema/test_real_crds.py", "tests/test_crd_sources_doc.py"
        )
        assert re.search(r"^(\d+) tests? collected", out, re.MULTILINE) or re.search(
            r"(\d+)/\d+ tests collected", out
        ), out[-500:]
        assert not re.search(r"\b0/\d+ tests collected|no tests collected", out), out[-500:]


def test_without_shared_the_tests_over_its_files_skip_with_its_reason(tmp_path):
    out = run_pytest(
        "-rs",
        "tests/crdschema/test_real_crds.py::test_every_upstream_example_of_a_known_kind_validates_cleanly",
        "tests/test_crd_sources_doc.py",
        env={"GPUFLEET_SHARED": str(tmp_path / "absent")},
    )
    assert "got empty parameter set" not in out
    assert out.count("../shared (real CRDs and upstream examples) exists only") >= 2, out[-800:]


def test_a_test_that_reads_shared_without_the_marker_fails_so_the_pass_with_shared_hidden_cannot_miss_it(
    request, monkeypatch
):
    assert request.node.get_closest_marker("shared") is None
    monkeypatch.setattr(conftest, "_RUNNING", [request.node])
    with pytest.raises(pytest.fail.Exception, match="without the `shared` marker"):
        shared_path("crds")
