"""The lock files pin every package, transitive ones included, with hashes, at the versions requirements*.txt pin.

``scripts/lock.sh`` writes them (``uv pip compile --generate-hashes``); scripts/test.sh and the
README install with ``pip install --require-hashes -r <lock>``, which refuses a lock with an
unhashed or unpinned entry. A pin edited in requirements*.txt without a new lock fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[2]
LOCKS = {
    "requirements.lock": ("requirements.txt",),
    "requirements-dev.lock": ("requirements.txt", "requirements-dev.txt"),
}


def entries(lock: Path) -> dict[str, tuple[str, list[str]]]:
    """Normalized name -> (the entry's requirement, its hashes) of a hashed lock file."""
    text = re.sub(r"\\\n\s*", " ", lock.read_text())
    out = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            requirement, *options = line.split(" --hash=")
            out[_norm(Requirement(requirement).name)] = (requirement.strip(), options)
    return out


def pins(requirements: Path) -> dict[str, str]:
    out = {}
    for line in requirements.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            requirement = Requirement(line)
            out[_norm(requirement.name)] = str(requirement.specifier)
    return out


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_every_entry_is_pinned_exactly_and_hashed(lock):
    found = entries(REPO / lock)
    assert found
    for name, (requirement, hashes) in found.items():
        assert re.fullmatch(r"[A-Za-z0-9._-]+==[^,;]+", requirement), f"{lock}: {requirement} is not an exact pin"
        assert hashes and all(h.startswith("sha256:") for h in hashes), f"{lock}: {name} has no sha256 hash"


@pytest.mark.parametrize("lock, sources", sorted(LOCKS.items()))
def test_every_pin_of_the_requirements_is_locked_at_that_version(lock, sources):
    locked = {name: requirement.split("==", 1)[1] for name, (requirement, _) in entries(REPO / lock).items()}
    for source in sources:
        for name, specifier in pins(REPO / source).items():
            assert name in locked, f"{lock} lacks {name} of {source}: run bash scripts/lock.sh"
            assert specifier == f"=={locked[name]}", (
                f"{lock} has {name}=={locked[name]}, {source} {specifier}: run bash scripts/lock.sh"
            )


def test_the_runtime_lock_is_the_dev_lock_without_the_dev_tools():
    runtime, dev = entries(REPO / "requirements.lock"), entries(REPO / "requirements-dev.lock")
    assert runtime.keys() <= dev.keys()
    assert {name: runtime[name][0] for name in runtime} == {name: dev[name][0] for name in runtime}


def test_the_test_command_installs_from_the_dev_lock_with_hashes():
    script = (REPO / "scripts" / "test.sh").read_text()
    assert "--require-hashes -r requirements-dev.lock" in script
    assert "-r requirements-dev.txt" not in script
