"""The differential tier's known disagreements: a case, a rule, and why the engines' behaviour is not the whole story.

Read by tests/e2e/test_difftier_e2e.py (a disagreement not listed here fails it) and by
bench/difftier_bench.py (which reports listed and unlisted ones apart); docs/sandbox.md
explains the table. ``case`` is a case id or an ``fnmatch`` pattern of ids; ``rule`` is
the rule of a false alarm, or None for a miss (no rule that fired foretold the outcome).
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from gpufleet.difftier.compare import Disagreement


@dataclass(frozen=True)
class Known:
    case: str
    rule: str | None
    kind: str
    outcome: str
    reason: str

    def covers(self, case_id: str, d: Disagreement) -> bool:
        return (fnmatchcase(case_id, self.case) and self.rule == d.rule and self.kind == d.kind
                and self.outcome == d.outcome)


KNOWN: tuple[Known, ...] = ()


def explain(case_id: str, d: Disagreement) -> Known | None:
    return next((k for k in KNOWN if k.covers(case_id, d)), None)
