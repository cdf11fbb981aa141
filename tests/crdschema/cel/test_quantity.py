"""Kubernetes' CEL quantity library in cel-python decides as k8s.io/apiserver pkg/cel/library/quantity.go (v0.37.0-beta.0).

One test per function (``isQuantity`` and ``isInteger`` share one: each holds exactly when
the conversion it guards does not fail), each with the upstream doc comment's examples where it has them.
"""

from __future__ import annotations

import pytest
from celpy import celtypes

from gpufleet.crdschema.cel.ext import compile_program


def run(expression: str):
    value = compile_program(expression).evaluate({})
    return bool(value) if isinstance(value, celtypes.BoolType) else value


def fails(expression: str) -> bool:
    try:
        run(expression)
    except Exception:  # noqa: BLE001 - a CEL error, as the API server's evaluation fails
        return True
    return False


@pytest.mark.parametrize(
    "text, ok",
    [
        ("1.5G", True),
        ("200k", True),
        ("200K", False),
        ("Three", False),
        ("Mi", False),
        ("", False),
        (" 8", False),
        ("8 ", False),
        ("8Ei", True),
        ("-1", True),
        (".5", True),
    ],
)
def test_quantity_parses_what_parse_quantity_parses_and_fails_on_the_rest(text, ok):
    assert fails(f"quantity('{text}')") is not ok


def guarded(predicate: str, conversion: str, cases: list[tuple[str, bool]]) -> list[tuple[str, str, str, bool]]:
    """(predicate, conversion, text, whether the predicate holds) for each (text, holds)."""
    return [(predicate, conversion, text, holds) for text, holds in cases]


@pytest.mark.parametrize(
    "predicate, conversion, text, holds",
    guarded(
        "isQuantity('{}')",
        "quantity('{}')",
        [
            ("1.3G", True),
            ("1.3Gi", True),
            ("1,3G", False),
            ("10000k", True),
            ("200K", False),
            ("Three", False),
            ("Mi", False),
            ("", False),
        ],
    )
    + guarded(
        "quantity('{}').isInteger()",
        "quantity('{}').asInteger()",
        [
            ("50000000G", True),
            ("50k", True),
            ("9999999999999999999999999999999999999G", False),
            ("1500m", False),
            ("8", True),
            ("-3", True),
            ("1n", False),
        ],
    ),
)
def test_is_quantity_and_is_integer_hold_exactly_when_quantity_and_as_integer_do_not_fail(
    predicate, conversion, text, holds
):
    assert run(predicate.format(text)) is holds
    assert fails(conversion.format(text)) is not holds


def test_quantity_and_is_quantity_take_strings_only_as_their_single_overload():
    assert fails("quantity(8)") and fails("isQuantity(8)")


def test_as_integer_is_the_int64_value():
    assert run("quantity('50k').asInteger() == 50000") is True


def test_as_approximate_float_is_the_float_value():
    assert run("quantity('50k').sub(20000).asApproximateFloat() == 30000.0") is True
    assert run("quantity('1500m').asApproximateFloat()") == 1.5


@pytest.mark.parametrize("text, expected", [("5", 1), ("-5m", -1), ("0", 0)])
def test_sign_is_one_minus_one_or_zero(text, expected):
    assert run(f"sign(quantity('{text}'))") == expected


@pytest.mark.parametrize(
    "expression",
    [
        "quantity('50k').add(quantity('20k')) == quantity('70k')",
        "quantity('50k').add(20) == quantity('50020')",
        "quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')",
    ],
)
def test_add_takes_a_quantity_or_an_int(expression):
    assert run(expression) is True


@pytest.mark.parametrize(
    "expression",
    [
        "quantity('50k').sub(quantity('20k')) == quantity('30k')",
        "quantity('50k').sub(20000) == quantity('30k')",
    ],
)
def test_sub_takes_a_quantity_or_an_int(expression):
    assert run(expression) is True


@pytest.mark.parametrize(
    "a, b, expected", [("200M", "100M", 1), ("1Gi", "1G", 1), ("1000m", "1", 0), ("500m", "1", -1)]
)
def test_compare_to_is_cmp(a, b, expected):
    assert run(f"quantity('{a}').compareTo(quantity('{b}'))") == expected


@pytest.mark.parametrize(
    "a, b, greater, less", [("200M", "100M", True, False), ("50M", "100M", False, True), ("100M", "100M", False, False)]
)
def test_is_greater_than_and_is_less_than_are_strict(a, b, greater, less):
    assert run(f"quantity('{a}').isGreaterThan(quantity('{b}'))") is greater
    assert run(f"quantity('{a}').isLessThan(quantity('{b}'))") is less


@pytest.mark.parametrize("a, b, equal", [("1000m", "1", True), ("1Gi", "1G", False), ("8", "8", True)])
def test_equality_compares_values_as_quantity_equal(a, b, equal):
    assert run(f"quantity('{a}') == quantity('{b}')") is equal
