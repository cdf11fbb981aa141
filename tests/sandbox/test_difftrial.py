"""The differential tier's trial side, without a sandbox: what is tried, where, and how it is linted."""

from __future__ import annotations

from pathlib import Path

from gpufleet.difftier.cases import Case
from gpufleet.sandbox.difftrial import is_gang, lint, lint_context, placed, skip_reason
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
