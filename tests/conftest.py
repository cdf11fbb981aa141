"""Fixtures shared by every test folder.

``shared_dir`` points at ``../shared`` (the CRDs and upstream examples gpufleet is
checked against). A user's clone has no ``../shared``: tests that need it skip with
a reason instead of failing, also tests parametrized over its files (:func:`shared_cases`,
not pytest's "got empty parameter set"). Every test that reads ../shared carries the
``shared`` marker: set here on the tests using one of its fixtures, by hand (``pytestmark``,
a parameter's ``marks``) elsewhere. A test that reaches ../shared through :func:`shared_path`
or :func:`shared_or_none` without the marker fails: scripts/test.sh runs ``pytest -m shared``
a second time with ../shared hidden (``GPUFLEET_SHARED`` an empty folder), so an unmarked
test would escape the check that a clone without ../shared passes.
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


_RUNNING: list[pytest.Item] = []
"""The test being set up or run (one at a time in a process), for :func:`_require_marker`."""


def _require_marker(path: Path) -> None:
    if _RUNNING and _RUNNING[-1].get_closest_marker("shared") is None:
        pytest.fail(
            f"{_RUNNING[-1].nodeid} reads {path} without the `shared` marker: add `pytestmark = pytest.mark.shared` "
            "(or use a ../shared fixture), so that the pass with ../shared hidden (scripts/test.sh) runs it",
            pytrace=False,
        )


def shared_path(*parts: str) -> Path:
    """Return a path under ../shared, or skip the test when ../shared is absent."""
    path = SHARED.joinpath(*parts)
    _require_marker(path)
    if not path.exists():
        pytest.skip(_absent(path))
    return path


def shared_or_none(*parts: str) -> Path | None:
    """A path under ../shared, or None when it is absent (a test that runs both ways: with and without it)."""
    path = SHARED.joinpath(*parts)
    _require_marker(path)
    return path if path.exists() else None


def shared_cases(cases: list, width: int, *parts: str) -> list:
    """``cases`` for a parametrize over what ../shared/``parts`` holds (its test carries the ``shared`` marker); when
    it is absent, one case (``width`` parameters) skipped with the ../shared reason."""
    path = SHARED.joinpath(*parts)
    if path.exists():
        return cases
    return [pytest.param(*([None] * width), marks=[pytest.mark.shared, pytest.mark.skip(reason=_absent(path))])]


SHARED_FIXTURES = frozenset({"shared_dir", "crds_dir", "upstream_dir", "real_crds"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``shared`` every test that reads ../shared through a fixture."""
    for item in items:
        if SHARED_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.shared)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):  # type: ignore[no-untyped-def]
    _RUNNING.append(item)
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
    try:
        return (yield)
    finally:
        _RUNNING.clear()


@pytest.fixture
def shared_dir() -> Path:
    return shared_path()


@pytest.fixture
def crds_dir() -> Path:
    return shared_path("crds")


@pytest.fixture
def upstream_dir() -> Path:
    return shared_path("examples", "upstream")
