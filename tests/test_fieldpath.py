"""A FieldPath prints the paths findings always printed, gives a JSON Pointer, and reads and writes values by its segments."""

from __future__ import annotations

import re
from pathlib import Path

import jsonpointer
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpufleet.kubetypes.fieldpath import ROOT, FieldPath, get_value, set_value

REPO = Path(__file__).resolve().parent.parent
LABELS = ROOT.child("metadata", "labels")


@pytest.mark.parametrize(
    "path, text",
    [
        (ROOT, ""),
        (ROOT.child("spec"), "spec"),
        (ROOT.child("spec", "tasks").index(1).child("template"), "spec.tasks[1].template"),
        (LABELS.key("kueue.x-k8s.io/queue-name"), "metadata.labels[kueue.x-k8s.io/queue-name]"),
        (ROOT.child("spec", "minResources").key("memory"), "spec.minResources[memory]"),
        (
            ROOT.child("data").key("controller_manager_config.yaml").child("waitForPodsReady", "timeout"),
            "data[controller_manager_config.yaml].waitForPodsReady.timeout",
        ),
        (ROOT.child("items").index(0) + ROOT.child("spec"), "items[0].spec"),
        (FieldPath.of("teams", 2, "quota", "", "h100"), "teams[2].quota.h100"),
    ],
)
def test_a_path_prints_the_text_findings_always_printed(path, text):
    assert str(path) == text and f"{path}" == text and path == text and hash(path) == hash(text)


@pytest.mark.parametrize(
    "path, pointer",
    [
        (ROOT, ""),
        (ROOT.child("spec", "tasks").index(1), "/spec/tasks/1"),
        (LABELS.key("kueue.x-k8s.io/queue-name"), "/metadata/labels/kueue.x-k8s.io~1queue-name"),
        (LABELS.key("a~b/c"), "/metadata/labels/a~0b~1c"),
    ],
)
def test_the_json_pointer_escapes_tilde_and_slash(path, pointer):
    assert path.pointer() == pointer


def test_a_key_with_dots_is_one_segment_and_reads_and_writes_the_right_value():
    obj = {"metadata": {"labels": {"kueue.x-k8s.io/queue-name": "a"}}}
    path = LABELS.key("kueue.x-k8s.io/queue-name")
    assert (
        path.segments == ("metadata", "labels", "kueue.x-k8s.io/queue-name")
        and path.last == "kueue.x-k8s.io/queue-name"
    )
    assert get_value(obj, path) == "a"
    set_value(obj, path, "b")
    assert obj == {"metadata": {"labels": {"kueue.x-k8s.io/queue-name": "b"}}}


def test_set_creates_missing_maps_but_never_list_items():
    obj: dict = {"spec": {"tasks": [{}]}}
    set_value(obj, ROOT.child("spec", "tasks").index(0).child("template", "spec", "restartPolicy"), "Never")
    assert obj["spec"]["tasks"][0] == {"template": {"spec": {"restartPolicy": "Never"}}}
    with pytest.raises(IndexError):
        set_value(obj, ROOT.child("spec", "tasks").index(3).child("x"), 1)


@pytest.mark.parametrize(
    "path", [ROOT.child("spec", "tasks").index(5), ROOT.child("spec", "x", "y"), ROOT.child("spec", "tasks", "z")]
)
def test_get_gives_the_default_where_the_path_leaves_the_tree(path):
    assert get_value({"spec": {"tasks": [{}], "x": 1}}, path, "none") == "none"


def test_parent_last_concatenation_and_relative_paths_keep_keys_as_keys():
    path = ROOT.child("data").key("a.b").child("c").index(2)
    assert str(path.parent) == "data[a.b].c" and path.last == 2 and not ROOT and ROOT.parent == ROOT
    rest = path.relative_to(ROOT.child("data"))
    assert rest is not None and str(rest) == "[a.b].c[2]" and ROOT.child("data") + rest == path
    assert (
        path.relative_to(ROOT.child("spec")) is None
        and ROOT.child("data", "a.b").relative_to(ROOT.child("data").key("a.b")) is None
    )


def test_paths_are_immutable_hashable_and_sort_by_their_text():
    a, b = ROOT.child("spec").index(1), ROOT.child("spec").index(0)
    assert sorted([a, b, "metadata"]) == ["metadata", b, a]
    assert {a: 1}[ROOT.child("spec").index(1)] == 1
    with pytest.raises(AttributeError):
        a.segments = ()  # type: ignore[misc]


names = st.text(min_size=1, max_size=12)
steps = st.lists(
    st.one_of(st.tuples(st.just("child"), names), st.tuples(st.just("key"), names)), min_size=1, max_size=6
)


@given(steps, st.integers() | st.text())
def test_a_value_set_at_any_path_of_map_keys_reads_back_there_and_at_its_json_pointer(steps, value):
    path = ROOT
    for how, name in steps:
        path = path.child(name) if how == "child" else path.key(name)
    tree: dict = {}
    set_value(tree, path, value)
    assert get_value(tree, path) == value
    assert jsonpointer.resolve_pointer(tree, path.pointer()) == value


# What was checked: the code below reads no path back from its text. The patterns are the
# parsers this redesign removed (lint.locate.split_path, routing.template_location, GANG202's
# _set, workloads.identity.keys_of, mutate.templates.keys, render.immutable.value_at).
PARSERS = [
    r'\.replace\("\]"',
    r'\.replace\("\["',
    r"path\w*\.(split|partition|rstrip)\(",
    r"path\w*\.(startswith|endswith|removeprefix)\(",
    r"findall\(\w*path",
    r"\\\[\(\\d\+\)\\\]",
]
# The one field path read from text: a CRD's x-kubernetes-validations fieldPath, which Kubernetes gives
# only as text. The other two are not field paths: an HTTP request path and a file name.
ALLOWED = {
    ("gpufleet/crdschema/cel/__init__.py", r"\\\[\(\\d\+\)\\\]"),
    ("gpufleet/steps/__init__.py", r"path\w*\.(split|partition|rstrip)\("),
    ("gpufleet/policypack/settings.py", r"path\w*\.(startswith|endswith|removeprefix)\("),
}


def matches(patterns: list[str], allowed: frozenset[tuple[str, str]] = frozenset()) -> list[str]:
    """``file: pattern`` for each pattern found in the project's code, except the allowed pairs."""
    found = []
    for folder in ("gpufleet", "policies", "components"):
        for file in sorted((REPO / folder).rglob("*.py")):
            rel = file.relative_to(REPO).as_posix()
            text = file.read_text(encoding="utf-8")
            found += [f"{rel}: {p}" for p in patterns if (rel, p) not in allowed and re.search(p, text)]
    return found


def test_no_path_is_parsed_back_from_its_text():
    assert matches(PARSERS, ALLOWED) == []


# An issue's path is a FieldPath wherever it names a field; a string literal is only a label for
# a place that is no field ("(file)", "(document)", "line 3"). The patterns catch a path written
# as text: a dotted or bracketed literal, an f-string path, and the removed errors.join_path.
TEXT_PATHS = [r'Issue\(f?"(?!line )[^"(]', r"\bjoin_path\("]


def test_no_issue_path_is_built_as_text():
    assert matches(TEXT_PATHS) == []
