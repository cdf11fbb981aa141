"""x-kubernetes-validations (CEL) on a CRD built in the test."""

from __future__ import annotations

import pytest

from gpufleet.crdschema import CrdSet
from tests.crdschema.builders import crd, widget


def crds_with(*rules: dict, where: str = "spec") -> CrdSet:
    spec = {
        "type": "object",
        "properties": {
            "size": {"type": "integer"},
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"n": {"type": "integer"}}, "x-kubernetes-validations": []},
            },
            "name": {"type": "string"},
        },
    }
    target = spec if where == "spec" else spec["properties"]["items"]["items"]
    target["x-kubernetes-validations"] = list(rules)
    schema = {"type": "object", "properties": {"metadata": {"type": "object"}, "spec": spec}}
    return CrdSet.from_documents([crd(schema)])


def issues_of(crds: CrdSet, **spec) -> list[tuple[str, str]]:
    return [(i.path, i.message) for i in crds.validate(widget(**spec))]


@pytest.mark.parametrize("size, expected", [(3, []), (11, [("spec", "size must be at most 10")])])
def test_a_rule_is_evaluated_with_self_bound_to_its_node(size, expected):
    crds = crds_with({"rule": "self.size <= 10", "message": "size must be at most 10"})
    assert issues_of(crds, size=size) == expected


def test_a_rule_on_list_items_is_reported_at_each_failing_item():
    crds = crds_with({"rule": "self.n > 0", "message": "n must be positive"}, where="items")
    assert issues_of(crds, items=[{"n": 1}, {"n": 0}, {"n": -1}]) == [
        ("spec.items[1]", "n must be positive"),
        ("spec.items[2]", "n must be positive"),
    ]


def test_field_path_is_appended_to_the_node_path():
    crds = crds_with({"rule": "self.size <= 10", "message": "too big", "fieldPath": ".size"})
    assert issues_of(crds, size=11) == [("spec.size", "too big")]


def test_message_expression_wins_over_message():
    crds = crds_with(
        {
            "rule": "self.size <= 10",
            "message": "static",
            "messageExpression": "'size ' + string(self.size) + ' is over 10'",
        }
    )
    assert issues_of(crds, size=12) == [("spec", "size 12 is over 10")]


def test_without_a_message_the_rule_itself_is_quoted():
    crds = crds_with({"rule": "self.size <= 10"})
    assert issues_of(crds, size=12) == [("spec", "failed rule: self.size <= 10")]


def test_a_rule_reading_a_missing_field_fails_like_on_the_api_server():
    crds = crds_with({"rule": "self.name.startsWith('gpu-')", "message": "name must start with gpu-"})
    [(path, message)] = issues_of(crds, size=1)
    assert path == "spec" and message.startswith(
        "name must start with gpu- (the rule could not be evaluated: no such member"
    )


@pytest.mark.parametrize("rule", ["self.size == oldSelf.size", "oldSelf == self"])
def test_transition_rules_are_skipped_on_create(rule):
    crds = crds_with({"rule": rule})
    assert (issues_of(crds, size=1), crds.unsupported_rules) == ([], [])


@pytest.mark.parametrize(
    "size, expected", [(1, []), (0, [("spec", "failed rule: !oldSelf.hasValue() && self.size > 0")])]
)
def test_optional_old_self_rules_run_with_no_old_value(size, expected):
    crds = crds_with({"rule": "!oldSelf.hasValue() && self.size > 0", "optionalOldSelf": True})
    assert issues_of(crds, size=size) == expected


@pytest.mark.parametrize(
    "total, expected", [(6, []), (7, [("spec", "failed rule: self.items.map(i, i.n).sum() == 6")])]
)
def test_the_list_sum_shim_adds_up(total, expected):
    crds = crds_with({"rule": "self.items.map(i, i.n).sum() == 6"})
    assert issues_of(crds, items=[{"n": 1}, {"n": 2}, {"n": total - 3}]) == expected


@pytest.mark.parametrize(
    "rule, reason",
    [
        ("self.size.noSuchFunction() == 1", "undeclared reference"),
        ("self.size <= ", "does not compile"),
    ],
)
def test_a_rule_cel_python_cannot_run_reports_nothing_but_is_recorded(rule, reason):
    crds = crds_with({"rule": rule})
    assert issues_of(crds, size=1) == []
    [unsupported] = crds.unsupported_rules
    assert (unsupported.crd, unsupported.path, unsupported.rule) == ("Widget v1", "spec", rule)
    assert reason in unsupported.reason


def test_identical_nodes_give_identical_results_from_the_memo():
    crds = crds_with({"rule": "self.n > 0", "message": "n must be positive"}, where="items")
    first = issues_of(crds, items=[{"n": 0}])
    assert issues_of(crds, items=[{"n": 0}, {"n": 0}]) == first + [("spec.items[1]", "n must be positive")]


@pytest.mark.parametrize(
    "expression",
    [
        "true || self.missing",
        "self.missing || true",
        "false && self.missing",
        "self.missing && false",
        "false || self.size > 2",
        "true && self.size > 2",
        "self.missing || false",
        "1 || true",
        "true || 1",
        "false || 1",
        "self.size > 2 || self.size < 1 || self.missing",
        "self.size == 3 && (self.size > 9 || true)",
    ],
)
def test_a_decisive_left_side_of_or_and_and_gives_what_stock_cel_python_gives(expression):
    from gpufleet.crdschema.cel import ext as celext

    value = celext.to_cel({"size": 3})

    def run(program):
        try:
            return repr(program.evaluate({"self": value}))
        except Exception as exc:  # noqa: BLE001 - an error is a result to compare
            return type(exc).__name__

    assert run(celext.compile_program(expression)) == run(celext.stock_program(expression))
