"""The yaml-rs fast path reads every text exactly as PyYAML (YAML 1.1) does, or steps aside.

The invariant: ``fastyaml.documents(text)`` is None (the loader then uses PyYAML with
nodes) or gives PyYAML's values and document lines. Checked on scalars where YAML 1.1 and
1.2 differ, on generated token soups, on real manifests, and through the loader and the
linter (fast path against the PyYAML-only path).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gpufleet.lint import fastyaml, lint_sources
from gpufleet.lint import loader as loader_module
from gpufleet.lint.sources import Source, collect

pytestmark = pytest.mark.skipif(fastyaml.yaml_rs is None, reason="yaml-rs is not installed: no fast path to test")

FIXTURES = Path(__file__).resolve().parent.parent / "rules" / "fixtures"
Loader = yaml.CSafeLoader


def canon(value: Any, _open: frozenset[int] = frozenset()) -> Any:
    """Values comparable across parsers: NaN equals NaN, types are part of the value; a node
    that contains itself (``&x [*x]``, which PyYAML builds as a recursive list) is ``("cycle",)``."""
    if isinstance(value, (dict, list)):
        if id(value) in _open:
            return ("cycle",)
        inner = _open | {id(value)}
        if isinstance(value, dict):
            return ("map", [(canon(k, inner), canon(v, inner)) for k, v in value.items()])
        return ("seq", [canon(v, inner) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    return (type(value).__name__, value)


def pyyaml_documents(text: str) -> list[tuple[Any, int]] | None:
    """PyYAML's (value, first line) per non-null document, or None when PyYAML refuses the text."""
    loader = Loader(text)
    found = []
    try:
        while loader.check_node():
            node = loader.get_node()
            value = loader.construct_document(node)
            if value is not None:
                found.append((canon(value), node.start_mark.line + 1))
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    return found


def assert_reads_like_pyyaml(text: str) -> bool:
    """Assert the invariant; True when the fast path took the text."""
    fast = fastyaml.documents(text)
    if fast is None:
        return False
    assert [(canon(v), line) for v, line, _, _, _ in fast] == pyyaml_documents(text), text
    return True


@pytest.mark.parametrize(
    "token",
    [
        "yes",
        "Yes",
        "YES",
        "no",
        "No",
        "NO",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "y",
        "n",
        "true",
        "False",
        "0755",
        "0o17",
        "0x1F",
        "0b101",
        "1_000",
        "1:30",
        "190:20:30",
        "1e3",
        "1.0e+3",
        "1.5e3",
        "+.5",
        "-.5",
        ".5",
        ".inf",
        "-.Inf",
        ".nan",
        ".NaN",
        "+1",
        "-0",
        "007",
        "08",
        "2024-01-01",
        "2024-01-01T10:00:00Z",
        "2024-1-1",
        "~",
        "null",
        "Null",
        "=",
        "<<",
        "1.",
        "12345678901234567890",
        "3.14",
        "500m",
        "10Gi",
        "v1",
    ],
)
@pytest.mark.parametrize(
    "layout", ["k: {}\n", "{}: v\n", "- {}\n", "k: [{}, x]\n", "k: {{a: {}}}\n", "# c\nk:\n  - {}\n"]
)
def test_scalars_that_yaml_1_1_and_1_2_read_differently_never_take_the_fast_path_wrongly(token, layout):
    assert_reads_like_pyyaml(layout.format(token))


@pytest.mark.parametrize(
    "text",
    [
        "a: yes\n",
        "mode: 0755\n",
        "on: push\n",
        "t: 1:30\n",
        "x: 1e3\n",
        "base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n",
        "a: 1\na: 2\n",
        "a: !!str 5\n",
        "? [a, b]\n: c\n",
        "%YAML 1.1\n---\na: 1\n",
        "a: 1\n...\nb: 2\n",
        "--- a: 1\n",
        "a:\tb\n",
        "{{}}\n",
        "[a, b]: c\n",
        "{a: 1, {b: 2}: 3}\n",
        "k: [|]\n",
        "|\n  text\n",
        ": v\n",
        "a: 1\r\nb: 2\r\n",
        "\ufeffa: 1\n",
        "a: \x07\n",
    ],
)
def test_texts_where_the_parsers_may_disagree_go_to_pyyaml(text):
    assert fastyaml.documents(text) is None or fastyaml.risky(text) is not None
    assert_reads_like_pyyaml(text)


@pytest.mark.parametrize(
    "text",
    [
        'k: "a\\/b"\n',
        'k: "\\x41\\u00e9\\U0001F600"\n',
        'k: "\\N\\_\\L\\P\\e\\0\\a"\n',
        'k: "multi\n  line"\n',
        "k: 'it''s'\n",
        'k: "\\q"\n',
        "k: 'multi\n\n  line'\n",
    ],
)
def test_quoted_scalars_and_their_escapes_read_like_pyyaml(text):
    assert_reads_like_pyyaml(text)


@pytest.mark.parametrize("text", ["d: '2024-01-01'\n", 't: "2024-01-01T10:00:00Z"\n', "d: 2024-01-01\n"])
def test_dates_read_like_pyyaml_quoted_or_not(text):
    assert_reads_like_pyyaml(text)


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\ncmd: |\n  sleep 10",
        "cmd: >\n  a\n  b",
        "cmd: |+\n  a",
        "cmd: |-\n  a",
        "l:\n- |\n  a\n- |\n  b",
        "cmd: |\n  a\n  # not a comment",
        "cmd: |\n  a\n# a comment",
        "k:\n  cmd: |\n    x |\n      y",
        "k: |-\n  x |\n    y",
        "k: 'a'",
        "k: |\n  a\nj: b",
    ],
)
def test_a_block_scalar_at_the_end_of_a_text_without_a_final_line_break_reads_like_pyyaml(text):
    assert assert_reads_like_pyyaml(text)


@pytest.mark.parametrize("text", ["a: [1\nb: 2\n", "a: b: c\n", "- a\nb: c\n", "a:\n  - b\n c: d\n"])
def test_malformed_yaml_is_left_to_pyyaml(text):
    assert fastyaml.documents(text) is None


@pytest.mark.parametrize(
    "text, lines",
    [
        ("a: 1\n", [1]),
        ("# lead\n\n---\n# c\na: 1\n---\nb: 2\n", [5, 7]),
        ("a: 1\n---\n", [1]),
        ("---\n---\na: 1\n", [3]),
        ("kind: A\n---   # comment\n\n  kind: B\n", [1, 4]),
    ],
)
def test_document_lines_are_the_first_node_lines(text, lines):
    assert [line for _, line, _, _, _ in fastyaml.documents(text) or []] == lines
    assert [line for _, line in pyyaml_documents(text) or []] == lines


TOKENS = st.sampled_from(
    [
        "a",
        "b",
        "key",
        "yes",
        "no",
        "on",
        "0755",
        "1:30",
        "1e3",
        "1_0",
        "+.5",
        "-",
        "- ",
        ":",
        ": ",
        "#",
        " #",
        "'",
        '"',
        "[",
        "]",
        "{",
        "}",
        ",",
        "&x",
        "*x",
        "!t",
        "?",
        "|",
        ">",
        "---",
        "...",
        "~",
        "=",
        "0",
        "1.",
        "\n",
        "\n  ",
        "\n    ",
        "\n- ",
        "\n  - ",
        " ",
        "2024-01-01",
        ".inf",
        "0x1",
        "0o7",
        "<<",
        "|-",
        "|+",
        ">-",
        "x |",
    ]
)


@settings(max_examples=800, deadline=None)
@given(st.lists(TOKENS, min_size=1, max_size=14))
@example(["\n- ", "|", "\n  ", "a", "\n  "])  # block scalar, then a last line of blanks without a line break
@example(["&x", "\n- ", "*x"])  # a sequence that contains itself
def test_generated_token_soups_read_like_pyyaml_or_go_to_pyyaml(tokens):
    assert_reads_like_pyyaml("".join(tokens))


def manifest_texts(upstream_dir: Path) -> list[Source]:
    return [s for s in collect([str(upstream_dir), str(FIXTURES)]) if s.text is not None]


def test_every_upstream_and_fixture_manifest_reads_like_pyyaml_and_most_take_the_fast_path(upstream_dir):
    sources = manifest_texts(upstream_dir)
    fast = [s.name for s in sources if assert_reads_like_pyyaml(s.text or "")]
    assert len(fast) >= 0.8 * len(sources), (len(fast), len(sources))


def test_the_loader_gives_the_same_objects_lines_and_problems_on_both_paths(upstream_dir, monkeypatch):
    sources = manifest_texts(upstream_dir)

    def digest(source: Source) -> tuple:
        got = loader_module.load(source)
        return (
            [(canon(dict(o.obj)), o.file, o.line, o.prefix, o.template) for o in got.objects],
            got.problems,
            got.skipped,
        )

    fast = [digest(s) for s in sources]
    monkeypatch.setattr(loader_module.fastyaml, "documents", lambda text: None)
    assert [digest(s) for s in sources] == fast


def test_the_linter_reports_the_same_findings_at_the_same_lines_on_both_paths(upstream_dir, monkeypatch):
    sources = manifest_texts(upstream_dir)
    fast = [(r.finding, r.template) for r in lint_sources(sources).results]
    monkeypatch.setattr(loader_module.fastyaml, "documents", lambda text: None)
    assert [(r.finding, r.template) for r in lint_sources(sources).results] == fast
    assert len(fast) > 50


def test_helm_output_keeps_its_template_names_on_the_fast_path():
    text = (
        "---\n# Source: chart/templates/a.yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n"
        "---\n# Source: chart/templates/b.yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  name: b\n"
    )
    assert fastyaml.documents(text) is not None
    got = loader_module.load(Source("helm.yaml", text))
    assert [(o.line, o.template) for o in got.objects] == [(3, "chart/templates/a.yaml"), (9, "chart/templates/b.yaml")]


SYNTAX_TOKENS = st.sampled_from(
    [
        "a",
        "b1",
        " ",
        "  ",
        "\n",
        "\n  ",
        "\n- ",
        ":",
        ": ",
        " :",
        "?",
        "? ",
        "-",
        "---",
        "...",
        "%",
        "&",
        "*",
        "!",
        "[",
        "]",
        "{",
        "}",
        ",",
        ", ",
        "|",
        ">",
        "@",
        "`",
        "#",
        " #",
        "'",
        '"',
    ]
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(SYNTAX_TOKENS, min_size=1, max_size=16))
def test_the_syntax_prefilter_lets_through_every_text_the_syntax_pattern_matches(tokens):
    text = "\n" + "".join(tokens)
    if fastyaml._SYNTAX.search(text) is not None:
        assert fastyaml.may_have_syntax(text), text


def test_the_syntax_prefilter_agrees_with_the_pattern_on_every_manifest(upstream_dir):
    for source in manifest_texts(upstream_dir):
        for _, body, _ in fastyaml.split(source.text or ""):
            text = fastyaml._COMMENT_LINES.sub("", "\n" + body)
            if fastyaml._SYNTAX.search(text) is not None:
                assert fastyaml.may_have_syntax(text), source.name
