"""The sandbox runs the engine versions its Go modules pin, and says how to build what is missing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gpufleet.sandbox import coscheduling, kueue, kwok, volcano
from gpufleet.sandbox.engines import ENGINES_DIR, EnginesMissing, locate


def required(engine: str, module: str) -> str:
    text = (ENGINES_DIR / engine / "go.mod").read_text()
    found = re.search(rf"^\s*(?:require\s+)?{re.escape(module)} (v\S+)", text, re.M)
    assert found, f"{engine}/go.mod requires no {module}"
    return found.group(1)


@pytest.mark.parametrize(
    "engine, pinned",
    [
        ("kueue", kueue.MODULE),
        ("volcano", volcano.MODULE),
        ("kwok", kwok.KWOK_MODULE),
        ("coscheduling", coscheduling.MODULE),
    ],
)
def test_the_files_the_sandbox_reads_come_from_the_module_version_it_builds(engine, pinned):
    module, version = pinned.split("@")
    assert required(engine, module) == version


def test_every_engine_module_commits_its_go_sum():
    for gomod in ENGINES_DIR.glob("*/go.mod"):
        assert (gomod.parent / "go.sum").is_file(), f"{gomod.parent.name}: go.sum is not committed"


def test_engines_not_built_are_named_with_the_command_that_builds_them(tmp_path, monkeypatch):
    if shutil.which("go") is None:
        pytest.skip("Go is not on PATH")
    monkeypatch.setenv("GPUFLEET_ENGINES_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(EnginesMissing) as missing:
        locate(["kueue", "kwok"])
    assert "kueue, kwok" in str(missing.value)
    assert "bash sandbox/engines/build.sh kueue kwok" in str(missing.value)


def test_without_go_the_message_says_go_is_missing(monkeypatch):
    monkeypatch.setenv("PATH", str(Path("/nonexistent")))
    with pytest.raises(EnginesMissing, match="Go is not on PATH"):
        locate(["kueue"])


def pin(package: str) -> str:
    text = (ENGINES_DIR.parent.parent / "requirements.txt").read_text()
    found = re.search(rf"^{re.escape(package)}==(\S+)", text, re.M)
    assert found, f"requirements.txt pins no {package}"
    return found.group(1)


def stamped(engine: str) -> str:
    return (ENGINES_DIR / engine / "ldflags").read_text().split("=", 1)[1].strip()


def test_the_kubernetes_provider_built_is_the_one_the_python_sdk_pin_asks_for():
    assert stamped("pulumi-kubernetes") == pin("pulumi_kubernetes")
    assert f'version={pin("pulumi_kubernetes")}' in (ENGINES_DIR / "pulumi-kubernetes" / "hook.sh").read_text()


def test_the_pulumi_cli_is_stamped_with_the_version_it_is_built_from_and_not_older_than_the_sdk_pin():
    built = required("pulumi", "github.com/pulumi/pulumi/pkg/v3")
    assert stamped("pulumi") == built == required("pulumi", "github.com/pulumi/pulumi/sdk/v3")
    as_tuple = lambda v: tuple(int(x) for x in v.lstrip("v").split("."))  # noqa: E731
    assert as_tuple(built) >= as_tuple(pin("pulumi")), "a CLI older than the Python SDK it runs"


HOOKS = sorted(ENGINES_DIR.glob("*/hook.sh"))


@pytest.mark.parametrize("hook", HOOKS, ids=[h.parent.name for h in HOOKS])
def test_a_hook_that_asks_the_module_cache_for_a_directory_downloads_the_module_first(hook):
    """On a cold module cache `go list -m -f {{.Dir}}` prints nothing (it does not download), so a
    hook that reads a module's files must `go mod download` that module before (a fresh CI machine
    failed this way: FileNotFoundError on '/cmd/pulumi-resource-kubernetes/schema.json')."""
    text = hook.read_text()
    asks = [m.start() for m in re.finditer(r"go list -m -f '\{\{\.Dir\}\}'", text)]
    for at in asks:
        assert re.search(r"^go mod download ", text[:at], re.M), (
            f"{hook}: go list -m at offset {at} with no go mod download before it"
        )
        assert "[ -n " in text[at:], f"{hook}: the directory go list -m names is used without checking it is not empty"


def fake_engines(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of build.sh beside three engine folders (one opt-in), with a stand-in ``go`` on PATH."""
    here = tmp_path / "engines"
    for name in ("alpha", "beta", "gamma"):
        (here / name).mkdir(parents=True)
        (here / name / "go.mod").write_text(f"module x/{name}\n\ngo 1.26.0\n")
        (here / name / "go.sum").write_text("")
    (here / "gamma" / "opt-in").write_text("only a test tier uses it\n")
    shutil.copy(ENGINES_DIR / "build.sh", here)
    shutil.copy(ENGINES_DIR / "cold-build.env", here)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "go").write_text("#!/bin/sh\necho go1.26.8\n")
    (bin_dir / "go").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "GPUFLEET_ENGINES_CACHE": str(tmp_path / "cache")}
    return here, env


@pytest.mark.parametrize(
    "args, listed",
    [
        ([], ["alpha", "beta"]),
        (["gamma"], ["gamma"]),
        (["--with", "gamma"], ["alpha", "beta", "gamma"]),
    ],
    ids=["default", "named", "with"],
)
def test_an_opt_in_engine_is_built_only_when_named(tmp_path, args, listed):
    here, env = fake_engines(tmp_path)
    done = subprocess.run(
        ["bash", str(here / "build.sh"), "--check", *args], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 4, done.stderr
    assert done.stdout.split() == [word for name in listed for word in (name, "-")]


def test_only_the_test_tiers_engine_is_opt_in():
    assert sorted(p.parent.name for p in ENGINES_DIR.glob("*/opt-in")) == ["pulumi-yaml"]


def test_the_test_command_builds_the_opt_in_engines_too():
    script = (ENGINES_DIR.parent.parent / "scripts" / "test.sh").read_text()
    opt_in = " ".join(sorted(p.parent.name for p in ENGINES_DIR.glob("*/opt-in")))
    assert f"bash sandbox/engines/build.sh --with {opt_in} " in script
