"""A JSON Patch applied to a round-trip YAML tree changes only what it names and keeps the comments where they belong."""

from __future__ import annotations

import io

import pytest
from ruamel.yaml import YAML

from gpufleet.lint.rtpatch import PatchError, apply


def patched(text: str, ops: list[dict]) -> str:
    yaml = YAML()
    yaml.indent(mapping=2, sequence=4, offset=2)
    tree = yaml.load(text)
    apply(tree, ops)
    out = io.StringIO()
    yaml.dump(tree, out)
    return out.getvalue()


DOC = """\
metadata:
  name: train   # the run
# the spec
spec:
  tolerations:
    - key: a
  # after the list
  labels:
"""


@pytest.mark.parametrize(
    "op, expected",
    [
        (
            {"op": "add", "path": "/metadata/labels", "value": {"q": "alpha"}},
            "metadata:\n  name: train   # the run\n  labels:\n    q: alpha\n# the spec\nspec:\n",
        ),
        (
            {"op": "add", "path": "/spec/tolerations/-", "value": {"key": "b"}},
            "  tolerations:\n    - key: a\n    - key: b\n  # after the list\n  labels:\n",
        ),
        (
            {"op": "add", "path": "/spec/tolerations/0", "value": {"key": "z"}},
            "  tolerations:\n    - key: z\n    - key: a\n",
        ),
        ({"op": "replace", "path": "/spec/labels", "value": {"x": "y"}}, "  labels:\n    x: y\n"),
        ({"op": "remove", "path": "/spec/tolerations"}, "# the spec\nspec:\n  labels:\n"),
        ({"op": "add", "path": "/metadata/name", "value": "other"}, "  name: other   # the run\n"),
    ],
    ids=[
        "a key added to a map goes last, before the comment that introduces the next block",
        "an item appended to a list goes before the comment that followed the list",
        "an item added at an index goes there",
        "a null value is replaced",
        "a key is removed",
        "adding an existing key replaces its value and keeps its comment",
    ],
)
def test_an_operation_changes_only_what_it_names(op, expected):
    assert expected in patched(DOC, [op])


TEMPLATE = """\
spec:
  template:
    # the pod
    spec:
      restartPolicy: Never
"""


@pytest.mark.parametrize(
    "text, op, expected",
    [
        (
            TEMPLATE,
            {"op": "add", "path": "/spec/template/metadata", "value": {"labels": {"g": "t"}}},
            "spec:\n  template:\n    metadata:\n      labels:\n        g: t\n    # the pod\n    spec:\n"
            "      restartPolicy: Never\n",
        ),
        (
            "metadata:\n  name: a\n  annotations:\n    x: y\nspec: {}\n",
            {"op": "add", "path": "/metadata/labels", "value": {"q": "a"}},
            "metadata:\n  name: a\n  labels:\n    q: a\n  annotations:\n    x: y\nspec: {}\n",
        ),
        (
            "kind: Job\n# the run\nspec:\n  x: 1\n",
            {"op": "add", "path": "/metadata", "value": {"name": "j"}},
            "kind: Job\nmetadata:\n  name: j\n# the run\nspec:\n  x: 1\n",
        ),
        (
            "kind: Job\nspec:\n  x: 1\n",
            {"op": "add", "path": "/status", "value": {"active": 1}},
            "kind: Job\nspec:\n  x: 1\nstatus:\n  active: 1\n",
        ),
    ],
    ids=[
        "a pod template's metadata goes before its spec; the comment introducing the spec stays in front of it",
        "labels go before annotations",
        "an object's metadata goes before its spec; the comment introducing the spec stays in front of it",
        "a key with nothing after it in the order goes last",
    ],
)
def test_a_key_added_where_kubernetes_orders_it_goes_before_the_keys_that_follow_it(text, op, expected):
    assert patched(text, [op]) == expected


def test_a_map_added_into_a_flow_map_stays_flow():
    assert (
        patched("metadata: {name: train}\n", [{"op": "add", "path": "/metadata/labels", "value": {"q": "a"}}])
        == "metadata: {name: train, labels: {q: a}}\n"
    )


@pytest.mark.parametrize(
    "op",
    [
        {"op": "move", "from": "/a", "path": "/b"},
        {"op": "add", "path": "/missing/x", "value": 1},
        {"op": "replace", "path": "/spec/nothing", "value": 1},
        {"op": "add", "path": "/spec/tolerations/9", "value": 1},
        {"op": "add", "path": "", "value": {}},
        {"op": "add", "path": "no-slash", "value": 1},
    ],
    ids=[
        "an operation the mutator never sends",
        "a missing parent",
        "replacing a missing key",
        "an index past the end",
        "the whole document",
        "a path that is no JSON pointer",
    ],
)
def test_an_operation_that_does_not_fit_the_tree_raises(op):
    with pytest.raises(PatchError):
        patched(DOC, [op])
