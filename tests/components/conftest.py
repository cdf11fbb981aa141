"""A fresh recording mock runtime for every component test (never module-level mocks)."""

from __future__ import annotations

import pytest

from tests.components.mocking import RecordingMonitor, install_mocks


@pytest.fixture
def monitor() -> RecordingMonitor:
    return install_mocks()
