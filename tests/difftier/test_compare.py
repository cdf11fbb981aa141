"""The differential tier's judgement: a rule's finding against what the engines did, phase by phase."""

from __future__ import annotations

import pytest

from gpufleet.difftier.compare import AGREE, FALSE_ALARM, MISS, UNTESTED, Disagreement, Observation, judge
from gpufleet.workloads import outcomes as O

PREDICTS = {
    "START": O.NEVER_WHOLE,
    "RESTART": O.BROKEN_GANG_RUNS_ON,
    "REFUSE": frozenset({O.REFUSED}),
    "NAMING": O.NOT_JUDGED,
}
ALL = tuple(PREDICTS)


@pytest.mark.parametrize(
    "fired, seen, verdict",
    [
        ("START", Observation(O.PARTLY_BOUND), AGREE),
        ("START", Observation(O.RAN_WHOLE, O.RESTARTED_WHOLE), FALSE_ALARM),
        ("START", Observation(O.REFUSED), UNTESTED),
        ("RESTART", Observation(O.RAN_WHOLE, O.RANK_REPLACED_ALONE), AGREE),
        ("RESTART", Observation(O.RAN_WHOLE, O.RESTARTED_WHOLE), FALSE_ALARM),
        ("RESTART", Observation(O.RAN_WHOLE, O.STOPPED_WHOLE), FALSE_ALARM),
        ("RESTART", Observation(O.NEVER_ADMITTED), UNTESTED),
        ("REFUSE", Observation(O.REFUSED), AGREE),
    ],
    ids=[
        "start hazard foretold",
        "ran and restarted whole",
        "refused before it could hang",
        "rank replaced alone foretold",
        "restarted whole after all",
        "stopped whole is gang-safe",
        "never ran, so never failed",
        "refusal foretold",
    ],
)
def test_a_rule_that_fired_is_judged_by_the_phase_it_speaks_of(fired, seen, verdict):
    assert judge([fired], ALL, PREDICTS, seen).verdicts[fired] == verdict


def test_a_false_alarm_names_the_rule_and_the_safe_outcome():
    judgement = judge(["START"], ALL, PREDICTS, Observation(O.RAN_WHOLE, O.RESTARTED_WHOLE))
    assert judgement.disagreements == (Disagreement("START", FALSE_ALARM, O.RAN_WHOLE),)
    assert not judgement.agrees


def test_a_hazard_no_fired_rule_foretold_is_one_miss_naming_the_silent_rules_that_predict_it():
    judgement = judge([], ALL, PREDICTS, Observation(O.RAN_WHOLE, O.RANK_REPLACED_ALONE))
    assert judgement.disagreements == (Disagreement(None, MISS, O.RANK_REPLACED_ALONE, ("RESTART",)),)
    assert judgement.verdicts["RESTART"] == MISS and judgement.verdicts["START"] == AGREE


def test_a_silent_rule_is_not_blamed_for_a_hazard_another_rule_foretold():
    judgement = judge(
        ["REFUSE", "START"],
        ALL,
        {**PREDICTS, "REFUSE": frozenset({O.REFUSED, O.NEVER_ADMITTED})},
        Observation(O.NEVER_ADMITTED),
    )
    assert judgement.agrees and judgement.verdicts["START"] == AGREE


def test_a_clean_lint_and_a_gang_that_runs_and_restarts_whole_agree():
    judgement = judge([], ALL, PREDICTS, Observation(O.RAN_WHOLE, O.RESTARTED_WHOLE))
    assert judgement.agrees and set(judgement.verdicts.values()) == {AGREE}


def test_rules_that_predict_nothing_are_left_out_even_when_they_fire():
    judgement = judge(["NAMING"], ALL, PREDICTS, Observation(O.RAN_WHOLE, O.RESTARTED_WHOLE))
    assert "NAMING" not in judgement.verdicts and judgement.agrees


def test_a_hazard_nothing_predicts_is_a_miss_of_the_linter_with_no_candidate():
    judgement = judge([], ["NAMING"], PREDICTS, Observation(O.GATED))
    assert judgement.disagreements == (Disagreement(None, MISS, O.GATED, ()),)


def test_a_rule_that_does_not_read_the_case_gets_no_verdict():
    assert judge([], ["REFUSE"], PREDICTS, Observation(O.RAN_WHOLE)).verdicts == {"REFUSE": AGREE}


def test_a_workload_that_is_no_gang_has_no_miss_but_its_false_alarms_count():
    seen = Observation(O.RAN_WHOLE, O.RANK_REPLACED_ALONE, gang=False)
    assert judge([], ALL, PREDICTS, seen).agrees and judge([], ALL, PREDICTS, seen).verdicts["RESTART"] == UNTESTED
    assert not judge(["START"], ALL, PREDICTS, Observation(O.RAN_WHOLE, O.RESTARTED_WHOLE, gang=False)).agrees
