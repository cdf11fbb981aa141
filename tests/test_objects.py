"""An object is reported by its name, or by its generateName prefix before it has one (gpufleet.kubetypes.objects)."""

from __future__ import annotations

import pytest

from gpufleet.kubetypes.objects import identity, reported_name


@pytest.mark.parametrize(
    "meta, expected",
    [
        pytest.param({"name": "train", "generateName": "train-"}, "train", id="the name first"),
        pytest.param({"generateName": "train-"}, "train-", id="the prefix before the API server names it"),
        pytest.param({"name": "", "generateName": "train-"}, "train-", id="an empty name is no name"),
        pytest.param({}, None, id="neither"),
    ],
)
def test_an_object_is_reported_by_its_name_or_its_generate_name_prefix(meta, expected):
    assert reported_name(meta) == expected


def test_an_object_s_identity_is_its_api_version_kind_namespace_and_reported_name():
    obj = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"namespace": "ml", "generateName": "train-"}}
    assert identity(obj) == ("batch/v1", "Job", "ml", "train-")


@pytest.mark.parametrize("metadata", [None, "train", ["train"], 3])
def test_malformed_metadata_reads_as_empty(metadata):
    assert identity({"apiVersion": "v1", "kind": "Pod", "metadata": metadata}) == ("v1", "Pod", None, None)
