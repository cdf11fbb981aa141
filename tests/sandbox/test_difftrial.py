"""The differential tier's trial side, without a sandbox: what is tried, where, and how it is linted."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from gpufleet.crdschema import CrdSet
from gpufleet.difftier import cases as source
from gpufleet.difftier.cases import Case
from gpufleet.difftier.compare import Disagreement, Judgement
from gpufleet.rules import registry
from gpufleet.sandbox.difftrial import blind_reason, is_gang, lint, lint_context, placed, skip_reason, target
from gpufleet.workloads import outcomes as O
from tests.conftest import SHARED
from tests.crdschema.builders import crd
from tests.e2e.sandbox_env import job, vcjob

ROOT = Path(__file__).resolve().parents[2]
CTX = lint_context(ROOT / "stacks" / "dev.fleet.yaml", None)
JOBSET = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"}, "spec": {}}


def test_a_kind_the_sandbox_runs_no_controller_for_is_skipped_with_that_reason():
    assert skip_reason(Case("c", (JOBSET,))) == "no JobSet (jobset.x-k8s.io/v1alpha2) controller in the sandbox"
    assert skip_reason(Case("c", (vcjob("v", "alpha-vc", pods=2),))) is None


def test_a_manifest_without_a_namespace_goes_to_the_namespace_no_team_owns():
    body = job("j", "alpha", pods=2)
    del body["metadata"]["namespace"]
    assert placed(Case("c", (body,)))[0]["metadata"]["namespace"] == "scratch"
    assert "namespace" not in body["metadata"]  # the case itself is left as it was


def test_the_lint_side_reports_the_rules_that_fired_and_those_that_read_the_case():
    fired, applicable = lint(placed(Case("c", (vcjob("v", "alpha-vc", pods=2, queue="alpha", min_available=1),))), CTX)
    assert "GANG001" in fired and "GANG001" in applicable and "GANG807" in applicable


def test_a_gang_is_what_the_rules_call_one():
    assert is_gang(placed(Case("c", (job("j", "alpha", pods=3),))), CTX)
    assert not is_gang(placed(Case("c", (job("j", "alpha", pods=1),))), CTX)


def volcano_job_crd() -> CrdSet:
    """A hand-made CRD for Volcano's Job: ``spec.minAvailable`` an integer, the rest left open."""
    spec = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
        "properties": {"minAvailable": {"type": "integer"}},
    }
    schema = {"type": "object", "properties": {"metadata": {"type": "object"}, "spec": spec}}
    return CrdSet.from_documents([crd(schema, kind="Job", version="v1alpha1", group="batch.volcano.sh")])


NO_CRDS = replace(CTX, crds=None)
"""``gpufleet lint --no-crds``'s world (or a package without CRD schemas): the schema rules cannot run."""
WITH_CRDS = replace(CTX, crds=volcano_job_crd())
FIXTURES = {c.id: c for c in source.fixtures(ROOT / "tests" / "rules" / "fixtures")}
WRONG_TYPE = FIXTURES["fixture:GANG601/disallowed.yaml#0"]  # minAvailable: four


def test_a_fixture_case_is_written_for_the_rule_its_folder_names():
    assert target(WRONG_TYPE) == "GANG601"
    assert target(Case("gen:31:0", ())) is None


def test_a_case_written_for_a_schema_rule_is_skipped_where_its_kinds_crd_schema_is_missing():
    reason = blind_reason(WRONG_TYPE, NO_CRDS)
    assert reason is not None and reason.startswith(
        "GANG601 cannot judge this case here: Job (batch.volcano.sh/v1alpha1)"
    )
    assert "CRD schema" in reason


def test_the_same_case_is_judged_where_the_schema_is_there_and_the_rule_fires():
    assert blind_reason(WRONG_TYPE, WITH_CRDS) is None
    fired, applicable = lint(placed(WRONG_TYPE), WITH_CRDS)
    assert "GANG601" in fired and "GANG601" in applicable


def test_the_schemas_the_package_carries_let_the_default_context_judge_it():
    assert CTX.crds is not None and CTX.crds.knows(WRONG_TYPE.docs[-1])
    assert blind_reason(WRONG_TYPE, CTX) is None


def test_a_rule_that_cannot_judge_a_case_is_not_counted_as_reading_it():
    fired, applicable = lint(placed(WRONG_TYPE), NO_CRDS)
    assert "GANG601" not in fired and "GANG601" not in applicable and "GANG001" in applicable


def test_a_case_written_for_a_rule_that_needs_no_crds_is_tried_without_them():
    [case, *_] = [c for i, c in FIXTURES.items() if i.startswith("fixture:GANG001/disallowed.yaml")]
    assert blind_reason(case, CTX) is None


def judged(*misses: str) -> Judgement:
    return Judgement({}, tuple(Disagreement(None, "miss", outcome) for outcome in misses))


@pytest.mark.parametrize(
    ("ctx", "judgement", "skipped"),
    [
        (NO_CRDS, judged(O.REFUSED), True),  # only GANG601 foretells a refusal, and it could not read the Job
        (WITH_CRDS, judged(O.REFUSED), False),  # it could: the miss stands
        (NO_CRDS, judged(O.NEVER_ADMITTED), False),  # a miss no blind rule foretells stands
        (NO_CRDS, Judgement({}, (Disagreement("GANG001", "falseAlarm", O.RAN_WHOLE),)), False),  # a false alarm stands
    ],
)
def test_a_miss_only_a_rule_that_could_not_judge_the_case_foretells_is_no_verdict(ctx, judgement, skipped):
    case = Case("gen:31:0", WRONG_TYPE.docs)
    reason = blind_reason(case, ctx, judgement)
    assert (reason is not None) == skipped
    assert reason is None or "GANG601" in reason


@pytest.mark.shared
def test_the_differential_tiers_schema_cases_are_judged_by_their_rule_or_skipped_with_the_reason():
    """What tests/e2e/test_difftier_e2e.py does before its sandbox starts, in this process's world (with ../shared
    or without it: the pass with ../shared hidden runs this too): each fixture case written for a rule that needs
    CRD schemas is either skipped with that reason, or its rule can judge it and fires (so the engines' refusal is
    no miss)."""
    from tests.e2e.test_difftier_e2e import DEV, fixture_cases

    ctx = lint_context(DEV, SHARED / "crds")
    cases = [c for c in fixture_cases() if registry.REGISTRY[target(c) or ""].needs_crds]
    assert cases
    for case in cases:
        reason = blind_reason(case, ctx)
        fired, _ = lint(placed(case), ctx)
        assert (reason is not None and target(case) in reason) or target(case) in fired, (case.id, reason, fired)
