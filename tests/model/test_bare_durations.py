"""A bare number in a duration field is refused: ``coldStartBudget: 6`` is not six minutes (issue 19, item 6)."""

from __future__ import annotations

import pytest

from gpufleet.model import parse_model
from gpufleet.yamlin.errors import ModelError
from tests.model.builders import fleet


def issues(builder):
    try:
        parse_model(builder.build(), "t")
    except ModelError as err:
        return err.issues
    return []


FIELDS = ["pools[0].coldStartBudget", "admission.waitForPodsReady.timeout", "admission.coldStartFloor"]


@pytest.mark.parametrize("field", FIELDS)
def test_a_bare_number_in_a_duration_field_is_an_error_that_asks_for_a_unit(field):
    found = issues(fleet().set(field, 6))
    assert [i.path for i in found] == [field]
    assert "6 seconds? write 6m or 6s" in found[0].message


@pytest.mark.parametrize("value", ["6m", "360s", 0, "0"])
def test_a_duration_with_a_unit_or_a_bare_zero_is_accepted(value):
    assert not [
        i for i in issues(fleet().set("pools[0].coldStartBudget", value)) if i.path == "pools[0].coldStartBudget"
    ]
