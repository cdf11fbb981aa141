"""Field errors name the value they found, the nearest known key, and say to quote YAML booleans and numbers."""

from __future__ import annotations

import pytest

from gpufleet.model import parse_model
from gpufleet.model.field_errors import shown
from gpufleet.yamlin.errors import ModelError
from tests.model.builders import fleet


def messages(builder) -> dict[str, tuple[str, str]]:
    with pytest.raises(ModelError) as err:
        parse_model(builder.build(), "t")
    return {i.path: (i.message, i.fix) for i in err.value.issues}


@pytest.mark.parametrize(
    "path, typo, near",
    [
        ("poolz", "poolz", "pools"),
        ("teams[1].namez", "namez", "name"),
        ("teams[1].quota.h100.borowingLimit", "borowingLimit", "borrowingLimit"),
        ("admission.waitForPodsReady.timout", "timout", "timeout"),
    ],
)
def test_an_unknown_key_names_the_nearest_known_one_at_that_place(path, typo, near):
    builder = fleet()
    node, _ = builder._parent(path)
    node.pop(near, None)  # a misspelling replaces the key it misspells
    message, fix = messages(builder.set(path, 1))[path]
    assert f"did you mean {near!r}" in message and near in fix


def test_an_unknown_key_with_nothing_near_says_so_without_a_guess():
    message, _ = messages(fleet().set("teams[1].zzzzzzzz", 1))["teams[1].zzzzzzzz"]
    assert message == "unknown field 'zzzzzzzz'"


def test_a_pattern_mismatch_quotes_the_value_not_the_regular_expression():
    message, fix = messages(fleet().set("teams[0].name", "Bad_Name"))["teams[0].name"]
    assert message.startswith("'Bad_Name' ") and "^" not in message and "DNS" in fix


def test_a_long_value_is_shortened():
    assert shown("x" * 100) == "'" + "x" * 36 + "..." and shown("short") == "'short'"


@pytest.mark.parametrize("value, says", [(True, "YAML boolean"), (755, "YAML number"), (1.5, "YAML number")])
def test_a_yaml_boolean_or_number_where_a_string_belongs_says_to_quote_it(value, says):
    message, fix = messages(fleet().set("pools[0].name", value))["pools[0].name"]
    assert says in message and "quote" in fix


def test_an_unknown_key_never_suggests_a_key_already_written_beside_it():
    """Issue 32, item 17: `colour` on a team that has `cohort:` is not a misspelt `cohort`."""
    message, fix = messages(fleet().set("teams[1].colour", "red"))["teams[1].colour"]
    assert "cohort" not in message and "cohort" not in fix


def test_the_same_key_without_its_neighbour_still_gets_the_suggestion():
    message, _ = messages(fleet().drop("teams[1].cohort").set("teams[1].colour", "red"))["teams[1].colour"]
    assert "did you mean 'cohort'" in message
