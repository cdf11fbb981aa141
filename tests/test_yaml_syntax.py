"""A YAML syntax error reads like every other error: file:line:column, what is wrong in plain words, a fix to act on."""

from __future__ import annotations

import pytest
import yaml

from gpufleet.model import load_model
from gpufleet.yamlin import syntax, yamlio
from gpufleet.yamlin.errors import ModelError

CASES = {
    "item-outside-its-list": (
        "a: 1\nb:\n  - x\n  y: 2\n",
        (4, 3),
        "line 4 is not an item of the list that starts at line 3",
        "start it with '- '",
    ),
    "key-off-its-mapping": (
        "a:\n  b: 1\n c: 2\n",
        (3, 2),
        "line 3 is neither a key of the mapping that starts at line 1",
        "line it up with the other keys",
    ),
    "colon-in-a-value": ("a: b: c\n", (1, 5), "a value holding ': '", "quote the value"),
    "key-without-colon": ("a: 1\nb\nc: 2\n", (2, 1), "line 2 has no ':' after its key", "'key: value'"),
    "reserved-first-character": ("a: @x\n", (1, 4), "starts with '@', which YAML reserves", "quote the value"),
    "unclosed-quote": ('a: "abc\nb: 1\n', (3, 1), "the quoted text that starts at line 1 is never closed", "close"),
    "unclosed-flow-list": ("a: [1, 2\nb: 1\n", (2, 2), "the '[' list that starts at line 1 is not closed", "']'"),
    "tab-indentation": ("a:\n\tb: 1\n", (2, 1), "a tab character at column 1", "indent with spaces"),
}


def _error(text: str) -> yaml.YAMLError:
    with pytest.raises(yaml.YAMLError) as caught:
        yamlio.load(text)
    return caught.value


@pytest.mark.parametrize("text, at, says, fix", CASES.values(), ids=CASES.keys())
def test_a_common_syntax_error_is_told_in_plain_words_at_its_line_and_column_with_a_fix(text, at, says, fix):
    found = syntax.explain(_error(text), text)
    assert found.known and found.at == at
    assert says in found.problem and fix in found.fix
    assert "indicator" not in found.problem and "expected" not in found.problem


def test_a_control_character_is_named_at_its_line_and_column():
    text = "a: 1\nb: x\x01y\n"
    found = syntax.explain(_error(text), text)
    assert (found.problem, found.at) == ("a control character (U+0001) YAML does not allow", (2, 5))


def test_an_unusual_syntax_error_keeps_the_parsers_words_with_a_general_fix():
    text = "a: &x 1\nb: &x 2\n"
    found = syntax.explain(_error(text), text)
    assert not found.known and found.fix == syntax.GENERAL_FIX and found.at == (2, 4)


def test_a_model_with_a_syntax_error_is_one_line_like_every_other_model_error(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("apiVersion: gpufleet.dev/v1alpha1\nkind: Fleet\nname: x\npools:\n  - name: a\n   system: kueue\n")
    with pytest.raises(ModelError) as caught:
        load_model(path)
    [line] = caught.value.lines()
    assert line.startswith(f"{path}:6:4: malformed YAML: ")
    assert "(fix: fix the YAML syntax)" not in line and "(fix: " in line
