"""Loading inputs into objects: multi-document YAML, Lists, helm output, JSON, and GANG000 problems."""

from __future__ import annotations

import json

import pytest

from gpufleet.lint.loader import load
from gpufleet.lint.sources import Source
from tests.lint import manifests as m


def loaded(text: str, name: str = "in.yaml"):
    return load(Source(name, text))


def test_every_document_of_a_stream_is_an_object_with_its_start_line():
    text = m.probed_job("a") + "---\n# a comment\n" + m.probed_job("b") + "---\n---\n"
    result = loaded(text)
    assert [(o.obj["metadata"]["name"], o.line) for o in result.objects] == [("a", 1), ("b", 21)]
    assert result.problems == []


def test_list_items_become_objects_with_their_item_path_and_line():
    text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p0}\n- 42\n"
    result = loaded(text)
    assert [(o.prefix, o.line, o.obj["kind"]) for o in result.objects] == [("items[0]", 4, "Pod")]
    assert [(p.path, p.line) for p in result.problems] == [("items[1]", 7)]


def test_helm_template_output_remembers_each_documents_source_template():
    text = (
        "---\n# Source: kueue/templates/manager/manager-config.yaml\n"
        + m.CLEAN_CONFIG
        + "---\n# Source: kueue/templates/rbac/role.yaml\n"
        + m.UNBOUNDED_CONFIG
        + "---\n"
        + m.CLEAN_CONFIG
    )
    result = loaded(text)
    assert [o.template for o in result.objects] == [
        "kueue/templates/manager/manager-config.yaml",
        "kueue/templates/rbac/role.yaml",
        None,
    ]


@pytest.mark.parametrize(
    "text, line",
    [
        ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n   bad: indent\n", 5),
        ("apiVersion: v1\nkind: Pod\nmetadata: {name: [x\n", 4),
        ("a: 'unterminated\n", 2),
    ],
)
def test_malformed_yaml_is_a_problem_at_the_parsers_line(text, line):
    result = loaded(text)
    [problem] = result.problems
    assert problem.line == line and problem.message.startswith("malformed YAML")


def test_documents_before_a_yaml_error_are_kept():
    result = loaded(m.probed_job("kept") + "---\nkind: [\n")
    assert [o.obj["metadata"]["name"] for o in result.objects] == ["kept"]
    assert len(result.problems) == 1


@pytest.mark.parametrize(
    "text, why",
    [
        ("just a string\n", "not a Kubernetes object"),
        ("- 1\n- 2\n", "not a Kubernetes object"),
        ("actions: allocate\ntiers: []\n", "no apiVersion and no kind"),
    ],
)
def test_documents_that_are_not_objects_next_to_manifests_are_problems(text, why):
    result = loaded(m.CLEAN_CONFIG + "---\n" + text)
    [problem] = result.problems
    assert why in problem.message and problem.line == 8 and len(result.objects) == 1


@pytest.mark.parametrize(
    "text, why",
    [
        ("kind: Pod\nmetadata: {name: x}\n", "no apiVersion"),
        ("metadata: {name: x}\nspec: {}\n", "no apiVersion and no kind"),
    ],
)
def test_a_manifest_missing_apiversion_or_kind_is_a_problem_on_its_own(text, why):
    [problem] = loaded(text).problems
    assert why in problem.message


@pytest.mark.parametrize(
    "text, name",
    [
        ("image:\n  tag: v1\nreplicas: 2\n", "values.yaml"),
        ("on: [push]\njobs: {}\n", "workflow.yml"),
        ('{"version": 1, "fleet": "prod"}', "fleet-context.json"),
    ],
)
def test_a_file_without_anything_kubernetes_like_is_skipped_not_reported(text, name):
    result = loaded(text, name)
    assert (result.objects, result.problems, result.skipped) == ([], [], True)


def test_json_is_read_even_where_yaml_would_choke_on_tabs():
    text = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}, indent="\t")
    result = loaded(text, "pod.json")
    assert [o.obj["kind"] for o in result.objects] == ["Pod"] and result.problems == []


def test_broken_json_is_reported_at_its_line():
    [problem] = loaded('{\n  "apiVersion": "v1",\n  "kind": "Pod",,\n}\n', "bad.json").problems
    assert problem.line == 3 and problem.message.startswith("malformed JSON")


def test_an_unreadable_source_is_one_problem():
    [problem] = load(Source("gone.yaml", None, "does not exist")).problems
    assert problem.message == "the file does not exist" and problem.line is None
