"""A CRD rule's fieldPath (text, from the CRD) becomes a FieldPath whose segments the linter can walk."""

from __future__ import annotations

import pytest

from gpufleet.crdschema.cel import crd_field_path


@pytest.mark.parametrize(
    "text, segments, printed",
    [
        (".size", ("size",), "size"),
        ("size", ("size",), "size"),
        (".spec.replicas", ("spec", "replicas"), "spec.replicas"),
        (
            ".labels['kueue.x-k8s.io/queue-name']",
            ("labels", "kueue.x-k8s.io/queue-name"),
            "labels[kueue.x-k8s.io/queue-name]",
        ),
        ('.items[2].name', ("items", 2, "name"), "items[2].name"),
        (".a..b", ("a",), "a"),  # an unreadable step ends the path there
    ],
)
def test_a_crd_field_path_is_read_into_segments(text, segments, printed):
    path = crd_field_path(text)
    assert path.segments == segments and str(path) == printed
