"""Fixtures shared by every test folder.

``shared_dir`` points at ``../shared`` (the CRDs and upstream examples gpufleet is
checked against). A user's clone has no ``../shared``: tests that need it skip with
a reason instead of failing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("GPUFLEET_SHARED", REPO.parent / "shared"))


def shared_path(*parts: str) -> Path:
    """Return a path under ../shared, or skip the test when ../shared is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent: ../shared (real CRDs and upstream examples) exists only on the developers' machines and CI")
    return path


@pytest.fixture
def shared_dir() -> Path:
    return shared_path()


@pytest.fixture
def crds_dir() -> Path:
    return shared_path("crds")


@pytest.fixture
def upstream_dir() -> Path:
    return shared_path("examples", "upstream")
