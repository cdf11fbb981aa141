"""Classify one case: which rules fired, what the engines did, and whether the two agree, rule by rule.

Called by :mod:`gpufleet.sandbox.difftrial` after each trial, and by the unit tier with
hand-made inputs. A rule's ``predicts`` (:mod:`gpufleet.rules.api`) speaks of two
phases: the start (``refused``, ``neverAdmitted``, ``gated``, ``partlyBound``), always
reached, and the reaction to a failed rank (``rankReplacedAlone``, ``rankNotReplaced``,
``stoppedWhole``), reached only when the gang ran whole and a rank was failed. For a
rule that fired, its prediction is *confirmed* (``agree``) when the phase's outcome is
one it predicts and *contradicted* (``falseAlarm``) when that phase came out gang-safe
(ran whole; restarted whole); otherwise the engines stopped earlier for another
reason (``untested``). For an applicable rule that stayed silent: ``miss`` when a phase
came out as it predicts and no rule that fired predicted it; ``agree`` when the phase it
speaks of came out safe. Each hazard no fired rule predicted is one disagreement, a
miss of the linter (rule ``None``), naming the silent rules that predict it; only for a
gang: the linter makes no claim about other workloads (their replaced pods are right).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from gpufleet.workloads import outcomes as O

AGREE, MISS, FALSE_ALARM, UNTESTED = "agree", "miss", "falseAlarm", "untested"
START_HAZARDS = frozenset({O.REFUSED, O.NEVER_ADMITTED, O.GATED, O.PARTLY_BOUND})
FAILURE_HAZARDS = frozenset({O.RANK_REPLACED_ALONE, O.RANK_NOT_REPLACED, O.STOPPED_WHOLE, O.PARTLY_BOUND})


@dataclass(frozen=True)
class Observation:
    """What the engines did: the start outcome and, when a rank was failed, the reaction (else None)."""

    start: str
    failure: str | None = None
    gang: bool = True
    """The case's workload is a gang (:func:`gpufleet.rules.gangs.is_gang`). The linter claims nothing about other
    workloads (a CPU-only Indexed Job, a sweep, a single pod): their hazards are no miss, its findings still count."""

    def hazards(self) -> tuple[tuple[str, str], ...]:
        """``(phase, outcome)`` of each phase that did not come out gang-safe (none when nothing could run)."""
        if self.start == O.NOT_RUNNABLE:
            return ()
        out = [] if self.start == O.RAN_WHOLE else [("start", self.start)]
        if self.failure is not None and self.failure not in O.SAFE:
            out.append(("failure", self.failure))
        return tuple(out)


@dataclass(frozen=True)
class Disagreement:
    rule: str | None
    """The rule that fired in vain (a false alarm); None for a miss: no rule that fired foretold the outcome."""
    kind: str
    """``miss`` or ``falseAlarm``."""
    outcome: str
    """The outcome the engines showed in the phase at stake."""
    candidates: tuple[str, ...] = ()
    """For a miss: the applicable rules that predict the outcome and stayed silent (each gets a ``miss`` verdict)."""


@dataclass(frozen=True)
class Judgement:
    verdicts: Mapping[str, str]
    """Each judged rule that fired or applies to the case: agree, miss, falseAlarm or untested."""
    disagreements: tuple[Disagreement, ...]

    @property
    def agrees(self) -> bool:
        return not self.disagreements


PHASES = {"start": START_HAZARDS, "failure": FAILURE_HAZARDS}


def _foretells(predicted: frozenset[str], phase: str, outcome: str) -> bool:
    return outcome in predicted & PHASES[phase]


def _contradicted(predicted: frozenset[str], seen: Observation) -> str | None:
    """The safe outcome of a phase the prediction names, if that phase came out safe."""
    if predicted & START_HAZARDS and seen.start == O.RAN_WHOLE:
        return seen.start
    if predicted & FAILURE_HAZARDS and seen.failure in O.SAFE:
        return seen.failure
    return None


def judge(
    fired: Iterable[str], applicable: Iterable[str], predicts: Mapping[str, frozenset[str]], seen: Observation
) -> Judgement:
    """``fired``: codes of the rules with a finding on the case; ``applicable``: codes of the rules that read one of
    its objects; ``predicts``: each rule's predictions (rules predicting nothing are left out)."""
    fired_set = {c for c in fired if predicts.get(c)}
    hazards = seen.hazards()
    explained = {h for h in hazards if any(_foretells(predicts[c], *h) for c in fired_set)}
    verdicts: dict[str, str] = {}
    out: list[Disagreement] = []
    for code in sorted(fired_set | {c for c in applicable if predicts.get(c)}):
        mine = [h for h in hazards if _foretells(predicts[code], *h)]
        safe = _contradicted(predicts[code], seen)
        if code in fired_set:
            verdict = AGREE if mine else FALSE_ALARM if safe else UNTESTED
            if verdict == FALSE_ALARM:
                out.append(Disagreement(code, FALSE_ALARM, safe or ""))
        else:
            missed = [h for h in mine if h not in explained]
            verdict = MISS if missed and seen.gang else AGREE if safe and not mine else UNTESTED
        verdicts[code] = verdict
    for phase, outcome in hazards if seen.gang else ():
        if (phase, outcome) not in explained:
            silent = tuple(c for c in verdicts if c not in fired_set and _foretells(predicts[c], phase, outcome))
            out.append(Disagreement(None, MISS, outcome, silent))
    return Judgement(verdicts, tuple(out))
