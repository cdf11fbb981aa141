"""The e2e tier's waits for the background engine build (tests/e2e/engine_wait.py): the sandbox's engines first,
the whole build for modules that need the Pulumi engines or run alone, and those modules last."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.e2e.engine_wait import EARLY, BuildEnded, is_late, late_last, wait

ROOT = Path(__file__).resolve().parents[2]
E2E = ROOT / "tests" / "e2e"


def finish_later(path: Path, code: str, after: float = 0.2, began: list[float] | None = None) -> threading.Thread:
    """Write the build's exit code to ``path`` after ``after`` seconds, as scripts/test.sh does when it ends (first
    creating the file empty, as the shell's ``>`` does); ``began`` gets the moment the file was created."""

    def write() -> None:
        time.sleep(after)
        if began is not None:
            began.append(time.monotonic())
        path.write_text("")
        time.sleep(0.05)
        path.write_text(code)

    thread = threading.Thread(target=write)
    thread.start()
    return thread


def test_without_a_background_build_nothing_waits():
    assert wait(EARLY, status="", built=lambda _: pytest.fail("nothing to ask")) == 0.0


def test_the_sandbox_engines_end_the_wait_before_the_build_ends(tmp_path):
    asked = []
    waited = wait(EARLY, status=str(tmp_path / "rc"), built=lambda e: asked.append(e) or len(asked) == 3, poll=0.01)
    assert asked == [EARLY] * 3 and waited < 5


def test_the_whole_build_is_waited_for_until_its_exit_code_is_written(tmp_path):
    rc, created = tmp_path / "rc", []
    writer = finish_later(rc, "0", began=created)
    wait(None, status=str(rc), built=lambda _: pytest.fail("the whole build is not asked per engine"), poll=0.01)
    returned = time.monotonic()
    writer.join()
    assert returned >= created[0] + 0.05  # not before the file existed, nor while it was still empty


@pytest.mark.parametrize("engines", [EARLY, None])
def test_a_failed_build_ends_the_wait_with_its_exit_code(tmp_path, engines):
    (tmp_path / "rc").write_text("1\n")
    with pytest.raises(BuildEnded, match=r"exit 1"):
        wait(engines, status=str(tmp_path / "rc"), built=lambda _: False, poll=0.01)


def test_a_build_that_never_ends_times_out(tmp_path):
    with pytest.raises(TimeoutError):
        wait(None, status=str(tmp_path / "rc"), poll=0.01, limit=0.05)


@pytest.mark.parametrize(
    ("module", "late"),
    [
        (SimpleNamespace(), False),
        (SimpleNamespace(NEEDS_PULUMI=True), True),
        (SimpleNamespace(ALONE=True), True),
        (None, False),
    ],
)
def test_modules_that_need_the_pulumi_engines_or_run_alone_are_late(module, late):
    assert is_late(module) is late


def test_late_modules_run_last_with_the_modules_that_share_their_sandbox():
    order = ["a", "p1", "p2", "b", "c", "q1", "q2", "d"]
    keys = {"p1": "P", "p2": "P", "q1": "Q", "q2": "Q"}
    assert late_last(order, keys, late={"p2", "c"}) == ["a", "b", "q1", "q2", "d", "p1", "p2", "c"]
    assert late_last(order, keys, late=set()) == order


def test_every_e2e_module_that_runs_the_pulumi_engines_says_so():
    """pulumi_env waits in place anyway; without the flag such a module would hold a lane while it waits."""
    for path in sorted(E2E.glob("test_*.py")):
        tree = ast.parse(path.read_text())
        uses = any(isinstance(n, ast.ImportFrom) and n.module == "tests.e2e.pulumi_env" for n in ast.walk(tree))
        flagged = any(
            isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "NEEDS_PULUMI" for t in n.targets)
            for n in tree.body
        )
        assert flagged == uses, f"{path.name}: NEEDS_PULUMI = True is set exactly when it imports tests.e2e.pulumi_env"


@pytest.mark.skipif(shutil.which("go") is None, reason="build.sh needs Go on PATH to list its engines")
def test_build_sh_builds_the_sandbox_engines_before_the_late_ones(tmp_path):
    listed = subprocess.run(
        ["bash", str(ROOT / "sandbox" / "engines" / "build.sh"), "--check"],
        env={**os.environ, "GPUFLEET_ENGINES_CACHE": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    order = [line.split()[0] for line in listed.stdout.splitlines()]
    late = [n for n in order if (ROOT / "sandbox" / "engines" / n / "late").is_file()]
    assert set(EARLY) <= set(order) and late, listed.stderr
    assert order == [n for n in order if n not in late] + late
