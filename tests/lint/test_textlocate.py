"""The text locator gives exactly the node walk's line, on every path of real manifests.

For each document of the upstream examples, the rule fixtures and the linter's own test
manifests, every path to every value (plus a missing child under each mapping and an
index past each list's end, as findings about absent fields use) is located both ways:
the text walk (``TextDoc``) must agree with ``line_of`` over PyYAML's nodes, and it must
answer by itself (without composing nodes) for most documents.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from gpufleet.kubetypes.fieldpath import ROOT, FieldPath
from gpufleet.lint import fastyaml, textlocate
from gpufleet.lint.loader import load
from gpufleet.lint.locate import TextDoc, line_of
from gpufleet.lint.sources import collect
from gpufleet.rules.engine import check_object

FIXTURES = Path(__file__).resolve().parent.parent / "rules" / "fixtures"


def paths(value: Any, prefix: FieldPath = ROOT) -> Iterator[FieldPath]:
    """Every path into ``value`` (keys with dots or brackets included), with one missing child per collection."""
    yield prefix
    if isinstance(value, dict):
        yield prefix.child("zzMissing")
        for key, child in value.items():
            yield from paths(child, prefix.key(str(key)))
    elif isinstance(value, list):
        yield prefix.index(len(value))
        for i, child in enumerate(value):
            yield from paths(child, prefix.index(i))


def texts(upstream_dir: Path) -> list[tuple[str, str]]:
    files = sorted(upstream_dir.rglob("*.yaml")) + sorted(FIXTURES.rglob("*.yaml"))
    return [(str(p), p.read_text(encoding="utf-8")) for p in files]


def compare(name: str, text: str) -> int:
    """How many documents were checked; asserts equal lines on every path."""
    docs = fastyaml.documents(text)
    if docs is None:
        return 0
    for value, line, first, body, _ in docs:
        node = yaml.compose(body, Loader=yaml.CSafeLoader)
        doc = TextDoc(body, first, line - 1)
        for path in paths(value):
            assert doc.line_of(path) == line_of(node, path) + first, (name, line, path)
    return len(docs)


def test_the_text_walk_matches_the_node_walk_on_every_path_of_the_examples(upstream_dir):
    assert sum(compare(name, text) for name, text in texts(upstream_dir)) > 60


def test_the_text_walk_matches_the_node_walk_on_dumped_examples_with_quoted_scalars_over_lines(upstream_dir):
    """PyYAML's dumper writes multi-line strings as quoted scalars over several lines: walked from the text too."""
    checked = walked = 0
    for name, text in texts(upstream_dir):
        try:
            values = [v for v in yaml.load_all(text, Loader=yaml.CSafeLoader) if isinstance(v, dict)]
        except yaml.YAMLError:
            continue
        dumped = yaml.dump_all(values, Dumper=yaml.CSafeDumper, sort_keys=False)
        checked += compare(name, dumped)
        walked += "\n\n" in dumped and textlocate.safe(dumped)
    assert checked > 60 and walked > 5, (checked, walked)


def test_the_text_walk_places_most_upstream_findings_without_composing_nodes(upstream_dir):
    touched = composed = 0
    for source in collect([str(upstream_dir)]):
        for item in load(source).objects:
            findings = check_object(item.obj)
            if not isinstance(item.node, TextDoc) or not findings:
                continue
            for finding in findings:
                item.node.line_of(finding.path)
            touched, composed = touched + 1, composed + (item.node._node is not None)
    assert touched > 20
    assert composed <= 0.2 * touched, (composed, touched)


@pytest.mark.parametrize(
    "text",
    [
        "a:\n  b: 1\n  c:\n  - x\n  - y: 2\n    z: 3\n",
        "a:\n- \n- b: 1\nc: 2\n",
        "a:\n  # comment\n  b:\n    c: |\n      x: 1\n       y\n    d: 2\n",
        "a:\n  -\n    b: 1\n  - - c\n    - d\n",
        "'q.k': 1\n\"r\": {x: 1}\ns: [1, 2]\nt:\n",
        "a:\n  b: \"multi\n  line\"\n  c: 1\n",
        "a: &x\n  b: 1\nc: *x\n",
        "a:\n  b: 1 # c: 2\n  d:\n\n\n  e: 5\n",
        "a:\n  \"k.x\": \"v\"\n  'q''s': 'it''s\n  b: c'\n  d: 1\n",
        "a:\n  \"k\": \"say \\\"hi\n  b: c\"\n  d: [1,\n  2]\n  e: 2\n",
        "a:\n  s: |\n    echo \"x\n    y: 1\n  t: 2\n",
        "a:\n- 'sleep 10\n\n  '\n- b\nc: 1\n",
        "a:\n  b: \"x\\\n    y\" # c: 2\n  d: 1\n",
        "a:\n  k: 'it''s\n   x: y'\n  z: 1\n",
        "a: 'x\n y' # c\nb: 'p\n\n q'\nc:\n  - 'r\n    s'\n  - t\n",
        "\"k\": 'a\n  b'\nc: 1\n",
        "a: 'x\n  y'\nb: [1,\n 2]\nc: 3\n",
        "a:\n  - \"p \\\" q\n    - r\"\n  - s: \"t\n\n      u\"\n    v: 1\n",
    ],
)
def test_the_text_walk_matches_the_node_walk_on_tricky_layouts(text):
    value = yaml.load(text, Loader=yaml.CSafeLoader)
    node = yaml.compose(text, Loader=yaml.CSafeLoader)
    doc = TextDoc(text, 0, node.start_mark.line)
    for path in paths(value):
        assert doc.line_of(path) == line_of(node, path), path


def _in_block_scalar_by_walking_up(lined: str, at: int) -> bool:
    """The reference: walk up from ``at``'s row through ever shallower rows to one ending with ``|``/``>``."""
    end = lined.rfind("\n", 0, at)
    line = lined[end + 1 : at]
    shallower = len(line) - len(line.lstrip(" "))
    while shallower > 0 and end > 0:
        begin = lined.rfind("\n", 0, end)
        row, end = lined[begin + 1 : end], begin
        stripped = row.lstrip(" ")
        if not stripped or stripped[0] == "#":
            continue
        indent = len(row) - len(stripped)
        if indent < shallower:
            if re.search(r"[|>][-+0-9]*[ \t]*(?:#[^\n]*)?$", row):
                return True
            shallower = indent
    return False


def test_the_one_pass_block_scalar_rows_match_the_walk_up_on_every_row(upstream_dir):
    tricky = [
        "a: |\n  x\n    y\n  # c\n z\nb: >-\n  q\n\n  r\nc:\n  - |+2\n      s\n  - t\n",
        "k: | # note\n  \"u\n v: w\n",
    ]
    checked = inside = 0
    for _, text in texts(upstream_dir) + [("tricky", t) for t in tricky]:
        lined = "\n" + text
        rows = textlocate._Rows(lined)
        for found in re.finditer(r"\n( *)([^ \n#])", lined):
            at = found.start(2)
            expected = _in_block_scalar_by_walking_up(lined, at)
            assert rows.in_block_scalar(at) is expected, (text[:80], lined[found.start() + 1 : lined.find("\n", at)])
            checked, inside = checked + 1, inside + expected
    assert checked > 5000 and inside > 100, (checked, inside)


ROWS = st.sampled_from(
    ["a: |", "a: >-", "b: |+2 # c", "- |", "|", "x: y", "- z", "# c", "# |", "", "q: 'r |'", "s: t |"]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), ROWS), min_size=1, max_size=14))
def test_the_block_scalar_spans_match_the_walk_up_on_generated_rows(rows):
    lined = "\n" + "\n".join(" " * indent + row for indent, row in rows) + "\n"
    found = textlocate._Rows(lined)
    for row in re.finditer(r"\n( *)([^ \n#])", lined):
        assert found.in_block_scalar(row.start(2)) is _in_block_scalar_by_walking_up(lined, row.start(2)), lined
