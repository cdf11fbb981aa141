"""`pip install` of the checkout (offline) gives a working `gpufleet lint` and declares a lint-only dependency set."""

from __future__ import annotations

import os
import subprocess
import sys
from email.parser import Parser
from pathlib import Path

import pytest

from tests.install.checkout import BAD, GOOD, copy_sources

LINT_ONLY = {
    "pydantic",
    "pyyaml",
    "yaml-rs",
    "kubernetes",
    "jsonschema",
    "cel-python",
    "orjson",
    "typer",
    "rich",
    "ruamel-yaml",
    "jsonpointer",
}
PULUMI = {"pulumi", "pulumi-kubernetes", "pulumi-tls", "pulumi-policy", "grpcio", "protobuf"}
WEBHOOK = {"aiohttp", "prometheus-client", "cryptography"}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("install")
    target = tmp / "site"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-index",
            "--no-build-isolation",
            "--target",
            str(target),
            str(copy_sources(tmp / "src")),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return target


def _requirements(target: Path) -> list[str]:
    [info] = target.glob("gpufleet-*.dist-info")
    return Parser().parsestr((info / "METADATA").read_text()).get_all("Requires-Dist") or []


def _name(requirement: str) -> str:
    return (
        requirement.split(";")[0]
        .split("[")[0]
        .split(">")[0]
        .split("<")[0]
        .split("=")[0]
        .strip()
        .lower()
        .replace("_", "-")
        .replace(".", "-")
    )


def test_the_plain_install_needs_only_what_lint_and_validate_use(installed):
    plain = {_name(r) for r in _requirements(installed) if "extra ==" not in r}
    assert plain == LINT_ONLY


@pytest.mark.parametrize("extra, expected", [("pulumi", PULUMI), ("webhook", WEBHOOK)])
def test_the_pulumi_and_webhook_stacks_are_extras(installed, extra, expected):
    assert {_name(r) for r in _requirements(installed) if f'extra == "{extra}"' in r} == expected


def _gpufleet(target: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(target)}  # the installed copy first; its dependencies from this venv
    return subprocess.run(
        [sys.executable, "-m", "gpufleet", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


def test_the_installed_gpufleet_lint_passes_a_good_file_and_fails_a_bad_one(installed, tmp_path):
    (tmp_path / "good.yaml").write_text(GOOD)
    (tmp_path / "bad.yaml").write_text(BAD)
    where = subprocess.run(
        [sys.executable, "-c", "import gpufleet; print(gpufleet.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(installed)},
    )
    assert where.stdout.strip() == str(installed / "gpufleet" / "__init__.py")
    assert _gpufleet(installed, "lint", "good.yaml", cwd=tmp_path).returncode == 0
    bad = _gpufleet(installed, "lint", "bad.yaml", cwd=tmp_path)
    assert bad.returncode == 1 and "GANG106" in bad.stdout


def test_the_install_ships_every_rule_module_and_the_console_script(installed):
    from gpufleet.rules import registry

    shipped = {p.stem for p in (installed / "gpufleet" / "rules").glob("*/gang*.py")}
    assert {module.rsplit(".", 1)[-1] for module in registry.MODULES.values()} <= shipped
    assert (installed / "bin" / "gpufleet").exists()
