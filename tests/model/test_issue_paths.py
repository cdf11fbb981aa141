"""Model issues carry typed FieldPaths: checks, pydantic's errors and the YAML readers build them by segments.

Each path prints exactly the text the issue always printed (a quota flavor is a field,
``quota.h100``, as in the model file), and its segments are the keys and indices that
lead to the value, so a caller reads the value by walking them, never by parsing the text.
"""

from __future__ import annotations

import pytest

from gpufleet.kubetypes.fieldpath import FieldPath, get_value
from gpufleet.model import duplicate_keys, parse_model
from gpufleet.yamlin.errors import ModelError
from tests.model.builders import broken_everywhere, fleet

BROKEN = broken_everywhere().set("admission.waitForPodsReady.timeout", "1m")


@pytest.mark.parametrize(
    "text, segments",
    [
        ("teams[1].quota.h100.lendingLimit", ("teams", 1, "quota", "h100", "lendingLimit")),
        ("pools[0].taints[0].key", ("pools", 0, "taints", 0, "key")),
        ("admission.frameworks[0]", ("admission", "frameworks", 0)),
        ("admission.waitForPodsReady.timeout", ("admission", "waitForPodsReady", "timeout")),
        ("engines.volcano.chartVersion", ("engines", "volcano", "chartVersion")),
    ],
)
def test_a_check_reports_its_issue_at_a_typed_path_with_the_segments_of_the_field(text, segments):
    issues = BROKEN.issues()
    assert all(isinstance(i.path, FieldPath) for i in issues), [
        i.path for i in issues if not isinstance(i.path, FieldPath)
    ]
    path = next(i.path for i in issues if str(i.path) == text)
    assert path.segments == segments


def test_the_segments_of_a_check_issue_lead_to_the_bad_value_in_the_model():
    data = BROKEN.build()
    issue = next(i for i in BROKEN.issues() if i.path == "teams[1].quota.h100.lendingLimit")
    assert get_value(data, issue.path) == 9


def test_a_pydantic_error_becomes_a_typed_path_from_its_location():
    data = fleet().set("teams[1].quota.h100.nominl", 8).build()
    with pytest.raises(ModelError) as err:
        parse_model(data, "x.fleet.yaml")
    path = next(i.path for i in err.value.issues if "nominl" in i.message)
    assert isinstance(path, FieldPath) and path.segments == ("teams", 1, "quota", "h100", "nominl")


def test_a_duplicate_key_is_reported_at_a_typed_path():
    [issue] = duplicate_keys.check("pools:\n- name: a\n  name: b\n")
    assert (
        isinstance(issue.path, FieldPath)
        and issue.path.segments == ("pools", 0, "name")
        and str(issue.path) == "pools[0].name"
    )
