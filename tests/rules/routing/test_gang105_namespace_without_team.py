"""GANG105: gangs must run in a namespace some team owns."""

from __future__ import annotations

import pytest

from tests.rules import builders as b
from tests.rules.helpers import WITH_FLEET, paths

CODE = "GANG105"


@pytest.mark.parametrize(
    "obj, expected",
    [
        (b.volcano_job(namespace="scratch"), ["metadata.namespace"]),
        (b.volcano_job(namespace="vision-dev"), []),
        (b.jobset(namespace=None), []),
        (b.batch_job(namespace="scratch", parallelism=1), []),
        (b.pod(namespace="scratch"), []),
        (b.pod(namespace="scratch", group="g", total=1), ["metadata.namespace"]),
    ],
)
def test_a_gang_in_a_namespace_no_team_owns_is_flagged(obj, expected):
    assert paths(CODE, obj, WITH_FLEET) == expected
    assert paths(CODE, obj) == []
