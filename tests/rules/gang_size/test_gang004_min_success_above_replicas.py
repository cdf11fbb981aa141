"""GANG004: a Volcano Job's minSuccess must be reachable."""

from __future__ import annotations

import pytest

from tests.rules import builders as b
from tests.rules.helpers import fixed, paths

CODE = "GANG004"


@pytest.mark.parametrize("min_success, expected", [(None, []), (1, []), (4, []), (5, ["spec.minSuccess"])])
def test_a_min_success_above_the_pod_count_is_flagged(min_success, expected):
    assert paths(CODE, b.volcano_job(tasks=[b.task(replicas=4)], min_success=min_success)) == expected


def test_remediation_sets_min_success_to_the_pod_count():
    assert fixed(CODE, b.volcano_job(tasks=[b.task(replicas=4)], min_success=9))["spec"]["minSuccess"] == 4
