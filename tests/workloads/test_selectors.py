"""Label selectors match as Kubernetes' LabelSelectorAsSelector does."""

from __future__ import annotations

import pytest

from gpufleet.workloads.selectors import matches

LABELS = {"team": "a", "tier": "gpu"}


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ({}, True),
        ({"matchLabels": {"team": "a"}}, True),
        ({"matchLabels": {"team": "b"}}, False),
        ({"matchExpressions": [{"key": "team", "operator": "In", "values": ["a", "b"]}]}, True),
        ({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["x"]}]}, False),
        ({"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["a"]}]}, False),
        ({"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["x"]}]}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}, False),
        ({"matchLabels": {"team": "a"}, "matchExpressions": [{"key": "zone", "operator": "Exists"}]}, False),
    ],
)
def test_a_selector_matches_only_when_every_requirement_holds(selector, expected):
    assert matches(selector, LABELS) is expected


def test_an_unknown_operator_is_an_error_not_a_silent_match():
    with pytest.raises(ValueError, match="Gt"):
        matches({"matchExpressions": [{"key": "team", "operator": "Gt", "values": ["1"]}]}, LABELS)
