"""The real CRDs of ../shared, loaded once for the module that needs them."""

from __future__ import annotations

import pytest

from gpufleet.crdschema import CrdSet
from tests.conftest import shared_path


@pytest.fixture(scope="session")
def real_crds() -> CrdSet:
    return CrdSet.load(shared_path("crds"))
