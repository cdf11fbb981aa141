"""YAML limits (issue 11): depth refused before parsing, bounded numbers, alias expansion, encodings."""

from __future__ import annotations

import pytest
import yaml

from gpufleet.lint import loader as lint_loader
from gpufleet.lint.sources import Source
from gpufleet.yamlin import yamllimits


def test_deep_flow_nesting_is_refused_before_the_parser_runs(monkeypatch):
    def no_parsing(*args, **kwargs):
        raise AssertionError("the parser saw the text")

    monkeypatch.setattr(yaml, "load", no_parsing)
    with pytest.raises(yamllimits.LimitError, match="nest 30000 deep"):
        yamllimits.load("a: " + "[" * 30000 + "]" * 30000)


def test_brackets_inside_double_quoted_strings_do_not_count():
    text = "a: \"" + "[" * 500 + "\"\n"
    assert yamllimits.load(text) == {"a": "[" * 500}


def test_depth_just_inside_the_limit_loads_and_just_beyond_is_refused():
    ok = "a: " + "[" * (yamllimits.MAX_DEPTH - 1) + "]" * (yamllimits.MAX_DEPTH - 1)
    assert yamllimits.load(ok)
    with pytest.raises(yamllimits.LimitError):
        yamllimits.load("a: " + "[" * (yamllimits.MAX_DEPTH + 1) + "]" * (yamllimits.MAX_DEPTH + 1))


def test_huge_integers_and_float_overflows_become_big_numbers_with_their_text():
    value = yamllimits.load(f"a: {'9' * 5000}\nb: 1.0e+400\nc: .inf\nd: 12\n")
    assert isinstance(value["a"], yamllimits.BigNumber) and isinstance(value["b"], yamllimits.BigNumber)
    assert value["c"] == float("inf") and value["d"] == 12
    assert sorted(p for p, _ in yamllimits.out_of_range(value)) == [("a",), ("b",), ("c",)]


def test_an_alias_bomb_is_refused():
    bomb = "a: &a [1,2,3,4,5,6,7,8,9,10]\n" + "".join(
        f"{n}: &{n} [" + ",".join([f"*{p}"] * 10) + "]\n" for p, n in zip("abcd", "bcde")
    )
    with pytest.raises(yamllimits.LimitError, match="aliases"):
        yamllimits.load(bomb)


def test_a_few_aliases_are_fine():
    assert yamllimits.load("x: &x {a: 1}\ny: *x\nz: *x\n")["z"] == {"a": 1}


def test_the_linter_reports_deep_nesting_and_alias_bombs_as_gang000_problems():
    deep = lint_loader.load(Source("deep.yaml", "apiVersion: v1\nkind: ConfigMap\ndata: " + "[" * 5000 + "]" * 5000))
    assert not deep.objects and "nest" in deep.problems[0].message
    bomb = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\nx: &a [1,2,3,4,5,6,7,8,9,10]\n" + "".join(
        f"x{n}: &{n} [" + ",".join([f"*{p}"] * 10) + "]\n" for p, n in zip("abcd", "bcde")
    )
    result = lint_loader.load(Source("bomb.yaml", bomb))
    assert not result.objects and "aliases" in result.problems[0].message


def test_the_linter_reads_a_huge_integer_without_a_traceback():
    result = lint_loader.load(
        Source("big.yaml", f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\nspec: {{n: {'9' * 5000}}}\n")
    )
    assert result.objects and not result.problems


@pytest.mark.parametrize(
    "data, words", [(b"\xff\xfea\x00", "UTF-16"), (b"\x89PNG\r\n\x00\x00", "binary"), (b"a: \xe9t\xe9", "not UTF-8")]
)
def test_decode_names_the_encoding_problem_and_the_fix(data, words):
    with pytest.raises(ValueError, match=words):
        yamllimits.decode(data)


def test_an_embedded_config_over_the_limit_is_refused_not_parsed():
    with pytest.raises(yamllimits.LimitError, match="embedded document"):
        yamllimits.load_embedded("a: b\n" * 100_000)
