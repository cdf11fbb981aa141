"""CrdSet.load: directories, single files, non-CRD documents and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpufleet.crdschema import CrdSet
from gpufleet.yamlin.errors import ModelError
from tests.crdschema.builders import crd, widget, widget_schema


def write(path: Path, *docs) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(list(docs)))
    return path


def test_a_directory_is_read_recursively_with_both_suffixes_and_multiple_documents(tmp_path):
    write(
        tmp_path / "a.yaml", crd(widget_schema()), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    )
    write(
        tmp_path / "nested" / "deeper" / "b.yml",
        crd(widget_schema(), kind="Gadget"),
        crd(widget_schema(), kind="Sprocket"),
    )
    (tmp_path / "notes.txt").write_text("not yaml: [")
    crds = CrdSet.load(tmp_path)
    assert sorted(kind for _, _, kind in crds.versions) == ["Gadget", "Sprocket", "Widget"]


def test_a_single_file_can_be_loaded(tmp_path):
    crds = CrdSet.load(write(tmp_path / "one.yaml", crd(widget_schema())))
    assert crds.knows(widget())


def test_a_version_that_is_not_served_is_not_known(tmp_path):
    crds = CrdSet.load(write(tmp_path / "one.yaml", crd(widget_schema(), served=False)))
    assert not crds.knows(widget())


@pytest.mark.parametrize(
    "content, words",
    [
        ("kind: [unclosed\n", "malformed YAML"),
        (
            yaml.safe_dump({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "spec": {}}),
            "not a well-formed",
        ),
    ],
)
def test_bad_input_raises_a_model_error_naming_the_file(tmp_path, content, words):
    bad = tmp_path / "sub" / "bad.yaml"
    bad.parent.mkdir()
    bad.write_text(content)
    with pytest.raises(ModelError) as caught:
        CrdSet.load(tmp_path)
    assert caught.value.source == str(bad)
    assert words in str(caught.value)


def test_a_missing_path_raises_a_model_error(tmp_path):
    with pytest.raises(ModelError) as caught:
        CrdSet.load(tmp_path / "absent")
    assert caught.value.source == str(tmp_path / "absent")


def test_a_list_as_kubectl_get_crd_prints_it_is_read_as_its_items(tmp_path):
    listed = {"apiVersion": "v1", "kind": "List", "items": [crd(widget_schema()), crd(widget_schema(), kind="Gadget")]}
    crds = CrdSet.load(write(tmp_path / "cluster.yaml", listed))
    assert sorted(kind for _, _, kind in crds.versions) == ["Gadget", "Widget"]
