"""The engine: kind index, select/ignore, fleet-only rules, waivers, crashing rules, ordering, remediation."""

from __future__ import annotations

import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.rules import api, engine
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.engine import Engine
from tests.rules import builders as b

VOLCANO = (("batch.volcano.sh", "Job"),)
FLEET = FleetContext(fleet="t", teams=(), pools=())


def fake(code, check=None, kinds=VOLCANO, needs_fleet=False, remediate=None, severity=Severity.ERROR):
    def default_check(obj, ctx):
        yield Violation("spec.minAvailable", f"{code} fired")

    return Rule(
        code=code,
        name=f"rule-{code.lower()}",
        family="test",
        severity=severity,
        summary="s",
        fix=f"fix {code}",
        kinds=kinds,
        check=check or default_check,
        needs_fleet=needs_fleet,
        remediate=remediate,
    )


def codes(findings):
    return [f.code for f in findings]


RULES = Engine(
    [
        fake("GANG102"),
        fake("GANG001"),
        fake("GANG201"),
        fake("GANG105", needs_fleet=True),
        fake("GANG900", kinds=(("batch", "Job"),)),
    ]
)


def test_only_rules_for_the_objects_kind_run_in_code_order():
    assert codes(RULES.check_object(b.volcano_job())) == ["GANG001", "GANG102", "GANG201"]
    assert codes(RULES.check_object(b.batch_job())) == ["GANG900"]


def test_objects_of_unknown_kinds_or_not_mappings_have_no_findings():
    assert RULES.check_object({"apiVersion": "v1", "kind": "ConfigMap"}) == []
    assert RULES.check_object("text") == []  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "select, ignore, expected",
    [
        (["GANG1"], None, ["GANG102"]),
        (["GANG001", "GANG2"], None, ["GANG001", "GANG201"]),
        ("gang0,gang2", None, ["GANG001", "GANG201"]),
        (None, ["GANG1"], ["GANG001", "GANG201"]),
        (["ALL"], ["GANG001"], ["GANG102", "GANG201"]),
        (["GANG"], ["GANG"], []),
        ([], None, []),
    ],
)
def test_select_and_ignore_take_codes_or_prefixes_like_ruff(select, ignore, expected):
    assert codes(RULES.check_object(b.volcano_job(), select=select, ignore=ignore)) == expected


def test_fleet_rules_are_skipped_without_a_fleet_context_and_run_with_one():
    assert "GANG105" not in codes(RULES.check_object(b.volcano_job()))
    assert "GANG105" in codes(RULES.check_object(b.volcano_job(), CheckContext(fleet=FLEET)))


def test_a_finding_carries_the_objects_identity_and_the_rules_fix():
    (finding,) = RULES.check_object(b.volcano_job("big", namespace="ml"), select=["GANG001"])
    assert (finding.kind, finding.api_version, finding.namespace, finding.object_name) == (
        "Job",
        "batch.volcano.sh/v1alpha1",
        "ml",
        "big",
    )
    assert (finding.name, finding.path, finding.fix, finding.blocking) == (
        "rule-gang001",
        "spec.minAvailable",
        "fix GANG001",
        True,
    )


def test_a_violation_with_its_own_fix_overrides_the_rules_fix():
    rule = fake("GANG001", check=lambda obj, ctx: [Violation("spec", "m", "set minAvailable to 4")])
    (finding,) = Engine([rule]).check_object(b.volcano_job())
    assert finding.fix == "set minAvailable to 4"


@pytest.mark.parametrize(
    "reason, waived", [("elastic trainer, checkpoints every step", True), ("", False), ("   ", False)]
)
def test_a_waiver_needs_a_reason_and_keeps_the_finding_visible(reason, waived):
    job = b.volcano_job(annotations={"waive.gpufleet.dev/GANG001": reason})
    findings = {f.code: f for f in RULES.check_object(job)}
    assert set(findings) == {"GANG001", "GANG102", "GANG201"}
    assert findings["GANG001"].waived is waived
    assert findings["GANG001"].waiver_reason == (reason.strip() if waived else None)
    assert findings["GANG001"].blocking is not waived
    assert not findings["GANG102"].waived


def test_a_crashing_rule_becomes_an_error_finding_and_the_other_findings_survive():
    def boom(obj, ctx):
        yield Violation("spec.a", "found before the crash")
        raise KeyError("tasks")

    eng = Engine([fake("GANG001"), fake("GANG203", check=boom, severity=Severity.WARNING), fake("GANG204")])
    findings = eng.check_object(b.volcano_job())
    assert codes(findings) == ["GANG001", "GANG203", "GANG203", "GANG204"]
    crash = next(f for f in findings if f.path == "")
    assert crash.severity is Severity.ERROR and crash.message.startswith("internal error in rule GANG203")


def test_findings_of_one_object_are_sorted_by_code_then_path():
    def many(obj, ctx):
        return [Violation("spec.tasks[1]", "b"), Violation("spec.tasks[0]", "a")]

    eng = Engine([fake("GANG002", check=many), fake("GANG001", check=many)])
    assert [(f.code, f.path) for f in eng.check_object(b.volcano_job())] == [
        ("GANG001", "spec.tasks[0]"),
        ("GANG001", "spec.tasks[1]"),
        ("GANG002", "spec.tasks[0]"),
        ("GANG002", "spec.tasks[1]"),
    ]


def test_check_objects_keeps_input_order_and_hands_every_object_to_the_rules():
    seen = []
    rule = fake(
        "GANG001", check=lambda obj, ctx: seen.append(len(ctx.objects)) or [Violation("", obj["metadata"]["name"])]
    )
    findings = Engine([rule]).check_objects([b.volcano_job("b"), b.volcano_job("a")])
    assert [f.object_name for f in findings] == ["b", "a"] and seen == [2, 2]


def test_every_rule_on_one_object_shares_one_workload_view():
    views = []
    rule = fake("GANG001", check=lambda obj, ctx: views.append(ctx.run.view(obj)) or [])
    Engine([rule, fake("GANG002", check=rule.check)]).check_object(b.volcano_job())
    assert len(views) == 2 and views[0] is views[1]


def set_min(obj, ctx):
    obj["spec"]["minAvailable"] = 4
    return obj


def min_is_wrong(obj, ctx):
    if obj["spec"].get("minAvailable") != 4:
        yield Violation("spec.minAvailable", "wrong")


def test_remediate_applies_fixes_to_a_copy_and_leaves_the_input_alone():
    job = b.volcano_job(min_available=2)
    fixed = Engine([fake("GANG001", check=min_is_wrong, remediate=set_min)]).remediate(job)
    assert fixed["spec"]["minAvailable"] == 4 and job["spec"]["minAvailable"] == 2


def test_remediate_skips_waived_rules_clean_objects_and_failing_fixes():
    def explode(obj, ctx):
        obj["spec"]["minAvailable"] = 99
        raise RuntimeError("bad fix")

    waived = b.volcano_job(min_available=2, annotations={"waive.gpufleet.dev/GANG001": "elastic"})
    eng = Engine([fake("GANG001", check=min_is_wrong, remediate=set_min)])
    assert eng.remediate(waived)["spec"]["minAvailable"] == 2
    assert (
        Engine([fake("GANG001", check=min_is_wrong, remediate=explode)]).remediate(b.volcano_job(min_available=2))[
            "spec"
        ]["minAvailable"]
        == 2
    )


def test_the_module_functions_use_the_registered_rules():
    assert {r.code for r in engine.DEFAULT.rules} == set(engine.registry.REGISTRY)
    assert engine.check_object({"apiVersion": "v1", "kind": "Namespace"}) == []


def test_unknown_selectors_are_reported_for_the_linter():
    assert engine.unknown_selectors(["GANG", "NOPE1"]) == ["NOPE1"]


def run_rule(code, check_run):
    return Rule(
        code=code,
        name=f"rule-{code.lower()}",
        family="test",
        severity=Severity.ERROR,
        summary="s",
        fix=f"fix {code}",
        kinds=VOLCANO,
        check=lambda obj, ctx: iter(()),
        check_run=check_run,
    )


def test_a_stack_level_hook_runs_once_per_run_and_reports_on_the_objects_it_names():
    calls = []

    def every_second(run, ctx):
        calls.append(run)
        return [(obj, Violation("spec.queue", "judged with the run")) for obj in run.objects[1::2]]

    jobs = [
        b.volcano_job("a"),
        b.volcano_job("b", annotations={"waive.gpufleet.dev/GANG104": "known"}),
        b.volcano_job("c"),
    ]
    found = Engine([run_rule("GANG104", every_second)]).check_objects(jobs)
    assert len(calls) == 1 and [(f.object_name, f.waived) for f in found] == [("b", True)]


def test_a_crashing_hook_is_an_internal_error_on_the_runs_first_object_and_is_skipped_by_check_object():
    def crash(run, ctx):
        raise RuntimeError("boom")

    rules = Engine([run_rule("GANG104", crash)])
    (finding,) = rules.check_objects([b.volcano_job("a"), b.volcano_job("b")])
    assert finding.object_name == "a" and "internal error in rule GANG104" in finding.message and finding.internal
    assert rules.check_object(b.volcano_job("a")) == []


def test_the_wildcard_rule_sees_every_kind_through_the_rule_api():
    rule = fake("GANG601", kinds=api.EVERY_KIND)
    assert rule.any_kind and rule.applies_to({"apiVersion": "v1", "kind": "ConfigMap"})
    assert codes(Engine([rule]).check_object({"apiVersion": "v1", "kind": "ConfigMap"})) == ["GANG601"]
