"""The strings library's ``replace`` in cel-python decides as cel-go's ext strings (``strings.Replace``)."""

from __future__ import annotations

import pytest

from gpufleet.crdschema.cel.ext import compile_program


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("'nvidia.com/gpu'.replace('/', '..')", "nvidia.com..gpu"),  # how a resource name is written in a params key
        ("'a/b/c'.replace('/', '')", "abc"),
        ("'a/b/c'.replace('/', '-', 1)", "a-b/c"),
        ("'a/b/c'.replace('/', '-', -1)", "a-b-c"),
        ("'abc'.replace('x', 'y')", "abc"),
    ],
)
def test_replace_replaces_every_occurrence_or_the_first_n(expression, expected):
    assert str(compile_program(expression).evaluate({})) == expected
