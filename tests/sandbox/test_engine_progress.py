"""build.sh says, on stderr, when each engine starts and finishes building (with its seconds) or is cached, and keeps
`go build`'s own output in a log under the cache, printed in part when a build fails (scripts/test.sh shows stderr)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gpufleet.sandbox.engines import ENGINES_DIR

FAKE_GO = """#!/bin/sh
# A stand-in for go: `go env GOVERSION`, and `go build ... -o OUT PKG` that talks like a cold module cache.
case "$1" in
  env) echo go1.25.0 ;;
  build)
    echo "go: downloading example.com/lib v1.0.0" >&2
    echo "gc: GOGC=$GOGC GOMEMLIMIT=$GOMEMLIMIT" >&2
    [ -z "$FAKE_GO_FAIL" ] || { echo "compile error: $FAKE_GO_FAIL" >&2; exit 1; }
    while [ "$1" != "-o" ]; do shift; done
    echo binary > "$2" ;;
esac
"""


@pytest.fixture
def engines(tmp_path: Path) -> Path:
    """A copy of build.sh (and the cold-build figures it reads) beside one engine module, `demo`, and a fake go first
    on PATH."""
    folder = tmp_path / "engines"
    (folder / "demo").mkdir(parents=True)
    for name in ("build.sh", "cold-build.env"):
        shutil.copy2(ENGINES_DIR / name, folder / name)
    (folder / "demo" / "go.mod").write_text("module demo\n\ngo 1.25\n\ntool example.com/demo/cmd/demo\n")
    (folder / "demo" / "go.sum").write_text("")
    (tmp_path / "bin").mkdir()
    go = tmp_path / "bin" / "go"
    go.write_text(FAKE_GO)
    go.chmod(0o755)
    return folder


def build(engines: Path, **env: str) -> subprocess.CompletedProcess[str]:
    cache = engines.parent / "cache"
    environ = {
        **os.environ,
        "PATH": f"{engines.parent / 'bin'}:/usr/bin:/bin",
        "GPUFLEET_ENGINES_CACHE": str(cache),
        **env,
    }
    return subprocess.run(
        ["bash", str(engines / "build.sh"), "demo"], capture_output=True, text=True, env=environ, timeout=60
    )


def test_a_cold_build_says_when_each_engine_starts_and_how_long_it_took_without_go_noise(engines):
    done = build(engines)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert re.fullmatch(r"== demo: building \(log: .*/logs/demo-[0-9a-f]{16}\.log\)", lines[0])
    assert re.fullmatch(r"== demo: built in \d+ s", lines[-1])
    assert "go: downloading" not in done.stderr
    assert re.fullmatch(r"demo .*/bin/demo-[0-9a-f]{16}\n", done.stdout)


def test_the_go_output_is_kept_in_the_log_the_start_line_names(engines):
    done = build(engines)
    log = Path(re.search(r"\(log: (.*)\)", done.stderr).group(1))
    assert "go: downloading example.com/lib v1.0.0" in log.read_text()


def test_a_second_run_says_the_engine_is_cached(engines):
    build(engines)
    again = build(engines)
    assert again.returncode == 0 and again.stderr == "== demo: cached\n"


def test_a_failed_build_names_the_step_and_the_log_and_shows_its_end(engines):
    failed = build(engines, FAKE_GO_FAIL="undefined: x")
    assert failed.returncode == 1
    assert re.search(
        r"== demo: FAILED \(go build example\.com/demo/cmd/demo\); full output: .*demo-[0-9a-f]{16}\.log", failed.stderr
    )
    assert "compile error: undefined: x" in failed.stderr
    assert "built in" not in failed.stderr


@pytest.mark.parametrize(
    "given, expected",
    [
        ({}, "gc: GOGC=400 GOMEMLIMIT=3GiB"),  # build.sh's own: a quarter of the collections, bounded at 3 GiB
        ({"GOGC": "100", "GOMEMLIMIT": "off"}, "gc: GOGC=100 GOMEMLIMIT=off"),  # a user's (bench/engine_build_gc.py)
    ],
)
def test_go_runs_with_fewer_garbage_collections_unless_the_user_set_them(engines, given, expected):
    environ = {k: v for k, v in os.environ.items() if k not in ("GOGC", "GOMEMLIMIT")}
    cache = engines.parent / "cache"
    done = subprocess.run(
        ["bash", str(engines / "build.sh"), "demo"],
        capture_output=True,
        text=True,
        timeout=60,
        env={
            **environ,
            "PATH": f"{engines.parent / 'bin'}:/usr/bin:/bin",
            "GPUFLEET_ENGINES_CACHE": str(cache),
            **given,
        },
    )
    log = Path(re.search(r"\(log: (.*)\)", done.stderr).group(1))
    assert expected in log.read_text().splitlines()
