"""gpufleet.kubetypes.admission_match: matchConstraints spelled as the API server stores them (its defaults filled)."""

from __future__ import annotations

import pytest

from gpufleet.kubetypes.admission_match import match_constraints

RULE = {"apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"], "operations": ["CREATE"]}


def test_the_api_servers_defaults_are_spelled_out():
    assert match_constraints([RULE]) == {
        "resourceRules": [{**RULE, "scope": "*"}],
        "matchPolicy": "Equivalent",
        "namespaceSelector": {},
        "objectSelector": {},
    }


@pytest.mark.parametrize("scope", ["Namespaced", "Cluster", "*"])
def test_a_rules_own_scope_is_kept(scope):
    assert match_constraints([{**RULE, "scope": scope}])["resourceRules"][0]["scope"] == scope


def test_a_namespace_selector_replaces_the_empty_one():
    selector = {"matchExpressions": [{"key": "gpufleet.dev/team", "operator": "Exists"}]}
    assert match_constraints([RULE], selector)["namespaceSelector"] == selector


def test_no_two_policies_share_a_selector_object():
    first, second = match_constraints([RULE]), match_constraints([RULE])
    first["objectSelector"]["matchLabels"] = {"a": "b"}
    assert second["objectSelector"] == {}
