"""Fixtures shared by every test folder.

``shared_dir`` points at ``../shared`` (the CRDs and upstream examples gpufleet is
checked against). A user's clone has no ``../shared``: tests that need it skip with
a reason instead of failing, also tests parametrized over its files (:func:`shared_cases`,
not pytest's "got empty parameter set"). Every test that uses one of the ../shared
fixtures carries the ``shared`` marker (``pytest -m "not shared"`` leaves them out).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("GPUFLEET_SHARED", REPO.parent / "shared"))


def _absent(path: Path) -> str:
    return (
        f"{path} is absent: ../shared (real CRDs and upstream examples) exists only on the developers' machines and CI"
    )


def shared_path(*parts: str) -> Path:
    """Return a path under ../shared, or skip the test when ../shared is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(_absent(path))
    return path


def shared_cases(cases: list, width: int, *parts: str) -> list:
    """``cases`` for a parametrize over what ../shared/``parts`` holds; when it is absent, one case
    (``width`` parameters) skipped with the ../shared reason."""
    path = SHARED.joinpath(*parts)
    if path.exists():
        return cases
    return [pytest.param(*([None] * width), marks=[pytest.mark.shared, pytest.mark.skip(reason=_absent(path))])]


SHARED_FIXTURES = frozenset({"shared_dir", "crds_dir", "upstream_dir", "real_crds"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that reads ../shared through a fixture ``shared``."""
    for item in items:
        if SHARED_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.shared)


@pytest.fixture
def shared_dir() -> Path:
    return shared_path()


@pytest.fixture
def crds_dir() -> Path:
    return shared_path("crds")


@pytest.fixture
def upstream_dir() -> Path:
    return shared_path("examples", "upstream")
