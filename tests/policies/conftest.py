"""Fixtures of the policy-pack tests: the pack's own package on sys.path, and one running pack per session.

The pack process is started exactly as the Pulumi CLI starts it (``harness.Pack``) and
always killed at the end, even when a test fails. Tests that configure it restore the
default configuration (``configured``), so the order of tests does not matter.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping

import pytest

POLICIES = Path(__file__).resolve().parents[2] / "policies"
if str(POLICIES) not in sys.path:
    sys.path.insert(0, str(POLICIES))


@pytest.fixture(scope="session")
def pack() -> Iterator[Any]:
    from tests.policies.harness import Pack

    running = Pack()
    try:
        yield running
    finally:
        running.close()


@pytest.fixture
def configured(pack: Any) -> Iterator[Any]:
    """``configured(cfg)``: configure the session's pack like ``--policy-pack-config``; reset after the test."""

    @contextmanager
    def apply(config: Mapping[str, Any]) -> Iterator[Any]:
        pack.configure(config)
        try:
            yield pack
        finally:
            pack.reset()

    yield apply
    pack.reset()
