"""Bounded quantity parsing (issue 11): the API server's grammar and limits before any arithmetic."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpufleet.kubetypes import quantity
from gpufleet.kubetypes.quantity import MAX, QuantityError


@pytest.mark.parametrize(
    "text, value",
    [
        ("8", Decimal(8)),
        ("500m", Decimal("0.5")),
        ("1800Gi", Decimal(1800 * 2**30)),
        ("1.5Ki", Decimal(1536)),
        ("1e3", Decimal(1000)),
        ("2E", Decimal(2 * 10**18)),
        (".5", Decimal("0.5")),
        ("0.1m", Decimal("0.0001")),
        ("1e999999", MAX),
        ("8Ei", MAX),
        ("-1e40", -MAX),
        ("1e-999999", Decimal("1e-9")),
        ("0.0000000001", Decimal("1e-9")),
        ("9" * 900_000, MAX),
        ("0." + "0" * 100_000 + "1Ei", Decimal("1e-9")),
    ],
)
def test_quantities_parse_as_the_api_server_keeps_them(text, value):
    assert quantity.parse(text) == value


@pytest.mark.parametrize("text", ["abc", "1_000", "Infinity", "NaN", ".", "1e99999999999999999999", "1Ki5", "--1", ""])
def test_strings_outside_the_api_servers_grammar_are_refused(text):
    with pytest.raises(QuantityError):
        quantity.parse(text)


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan"), Decimal("Infinity"), Decimal("NaN")])
def test_non_finite_numbers_are_refused(value):
    with pytest.raises(QuantityError, match="finite"):
        quantity.parse(value)


@pytest.mark.parametrize("value", [10**4000, 2**64, 1e300, Decimal("1e999999"), "1e30"])
def test_the_model_refuses_what_the_rules_saturate(value):
    assert abs(quantity.parse(value)) == MAX
    with pytest.raises(QuantityError, match="largest Kubernetes quantity"):
        quantity.parse(value, saturate=False)


def test_a_900000_digit_quantity_takes_milliseconds_and_is_not_cached():
    text = "9" * 900_000
    started = time.perf_counter()
    quantity.parse(text)
    assert time.perf_counter() - started < 0.1
    for cache in (quantity._CACHE, quantity._SATURATED):
        assert len(cache) == 0 or all(len(k) <= quantity.CACHED_CHARS for k in cache._items)


@pytest.mark.parametrize("value", [2.310979053320025e-136, Decimal("1e-400"), "1e-400"])
def test_amounts_finer_than_a_nano_unit_round_up_to_1n_whatever_their_type(value):
    assert quantity.parse(value) == Decimal("1e-9")


def test_the_parse_cache_stays_bounded_in_bytes_over_many_distinct_quantities():
    for i in range(20_000):
        quantity.parse(f"{i}.{i}Mi")
    assert quantity._CACHE.used <= quantity._CACHE.max_bytes
    assert quantity._SATURATED.used <= quantity._SATURATED.max_bytes


@settings(max_examples=300, deadline=200)
@given(st.from_regex(r"\A[+-]?[0-9]{0,400}(\.[0-9]{0,400})?([eE][+-]?[0-9]{1,25}|Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?\Z"))
def test_any_string_of_the_grammar_parses_fast_within_the_bounds_or_is_refused(text):
    try:
        value = quantity.parse(text)
    except QuantityError:
        return
    assert abs(value) <= MAX and quantity.fmt(value)


def test_formatting_a_sum_of_saturated_amounts_does_not_expand_it():
    assert quantity.fmt(MAX * 10**30).endswith("e+48")
