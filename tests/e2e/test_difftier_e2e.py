"""The differential tier in CI: the linter's verdict against what the real engines did, on one shared sandbox.

A bounded set, a few minutes on two cores: for every rule that predicts an engine
outcome, the first case of its ``disallowed.yaml`` fixture that the sandbox can run
(the shape the rule was written for), then :data:`GENERATED` seeded shapes
(``GPUFLEET_DIFFTIER_SEED``, default :data:`SEED`; each case's id ``gen:SEED:N``
reproduces it). Each case is linted with every rule, the dev stack's fleet context and,
when ../shared is present, the engines' CRDs (``gpufleet lint --fleet stacks/dev.fleet.yaml
--crds ../shared/crds``) and tried on the dev stack's sandbox
without the gang-admission controller (``gpufleet try --no-controller``, rank 0 failed
once every rank runs), the trial deleting its objects before the next. A disagreement
(a miss, a false alarm) fails its case unless :data:`gpufleet.difftier.known.KNOWN`
lists it with the reason the engines' behaviour is not the whole story. A case a rule cannot
judge in that context (GANG601's without its kind's CRD schema: a clone without ../shared) is
skipped with that reason (:func:`gpufleet.sandbox.difftrial.blind_reason`), before its
sandbox starts when the case was written for that rule; those cases carry the ``shared``
marker (tests/sandbox/test_difftrial.py checks them without a sandbox, in both worlds). The run's log ends
with the agreement per rule and the cases per minute (reported, not asserted); the longer
run is bench/difftier_bench.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpufleet.difftier import cases as source
from gpufleet.difftier.generate import shapes
from gpufleet.difftier.tally import line
from gpufleet.model import load_model
from gpufleet.rules import registry
from gpufleet.sandbox.difftrial import Runner, blind_reason, lint_context, skip_reason, target
from gpufleet.sandbox.up import Options
from tests.conftest import SHARED
from tests.e2e.sandbox_pool import pool_key

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "stacks" / "dev.fleet.yaml"
SEED = 31
GENERATED = 6


def fixture_cases() -> list[source.Case]:
    judged = {r.code for r in registry.all_rules() if r.predicts}
    first: dict[str, source.Case] = {}
    for case in source.fixtures(ROOT / "tests" / "rules" / "fixtures"):
        code, name = case.id.split(":", 1)[1].split("#")[0].split("/")
        if code in judged and name == "disallowed.yaml" and skip_reason(case) is None:
            first.setdefault(code, case)
    return list(first.values())


def param(case: source.Case):
    """``case`` as a parameter; ``shared`` when written for a rule that needs CRD schemas (run with ../shared hidden
    too: it must skip, or run on the schemas the package carries)."""
    code = target(case)
    crds = code is not None and registry.REGISTRY[code].needs_crds
    return pytest.param(case, id=case.id, marks=[pytest.mark.shared] if crds else [])


SEED_USED = int(os.environ.get("GPUFLEET_DIFFTIER_SEED", SEED))
CASES = [param(c) for c in fixture_cases() + shapes(load_model(DEV), SEED_USED, GENERATED)]


POOL = pool_key(DEV, Options(controller=False))


@pytest.fixture(scope="module")
def context():
    """``gpufleet lint --fleet stacks/dev.fleet.yaml [--crds ../shared/crds]``'s context (CRDs when present). Every
    case reads it; only those marked ``shared`` (:func:`param`) depend on it, so it is read without the marker check."""
    return lint_context(DEV, SHARED / "crds")


@pytest.fixture(scope="module")
def runner(sandbox_pool, context, request):
    with sandbox_pool.lease(DEV, Options(controller=False)) as sb:
        runner = Runner(sb.kube, context)
        yield runner
    report(request, runner)


def report(request, runner) -> None:
    """Agreement per rule and cases per minute in the run's log (a report, not an assertion: bench/ measures)."""
    write = request.config.pluginmanager.get_plugin("terminalreporter").write_line
    record = runner.tally.record()
    write(
        f"differential tier, seed {SEED_USED}: {record['cases']} cases tried in {runner.seconds / 60:.1f} min "
        f"({record['cases'] / (runner.seconds / 60) if runner.seconds else 0:.1f} cases per minute, sandbox start excluded)"
    )
    for code, entry in record["rules"].items():
        write(f"  {code}: {line(entry)}")


@pytest.mark.parametrize("case", CASES)
def test_the_linter_and_the_engines_agree_or_the_disagreement_is_documented(context, case, request):
    blind = blind_reason(case, context)
    if blind:  # before the sandbox starts: a clone without ../shared pays nothing for it
        pytest.skip(blind)
    runner = request.getfixturevalue("runner")
    out = runner.run(case, "fixtures" if case.seed is None else None)
    if out.skipped:
        pytest.skip(out.skipped)
    seen = out.observation
    unexplained = [d for d, known in runner.disagreements(out) if known is None]
    why = out.trial.verdict.reasons if out.trial.verdict else (out.trial.message,)
    assert not unexplained, (
        f"{case.id} (seed {SEED_USED}): engines {seen}, rules fired {out.fired}; "
        f"{unexplained}; {'; '.join(case.notes)}; engines' reasons: {why}"
    )
