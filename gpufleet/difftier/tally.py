"""Agreement per rule over many judged cases, and its record for docs/rules.md.

Called by tests/e2e/test_difftier_e2e.py and bench/difftier_bench.py (which writes the
record to docs/difftier-agreement.json); ``scripts/gen_rules_doc.py`` reads that record
back through :func:`load` so that docs/rules.md shows each rule's agreement beside it.
A rule's rate is ``agree / (agree + miss + falseAlarm)``; ``untested`` cases (the engines
stopped for another reason first) are counted but not rated. The spread is the lowest
and highest rate over the run's groups (each seed's generated cases; the fixtures and
examples as one group).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from gpufleet.difftier.compare import AGREE, FALSE_ALARM, MISS, UNTESTED, Judgement

VERDICTS = (AGREE, MISS, FALSE_ALARM, UNTESTED)


def rate(counts: Mapping[str, int]) -> float | None:
    rated = counts.get(AGREE, 0) + counts.get(MISS, 0) + counts.get(FALSE_ALARM, 0)
    return None if not rated else counts.get(AGREE, 0) / rated


@dataclass
class Tally:
    by_rule: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    by_group: dict[str, dict[str, Counter]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(Counter)))
    cases: int = 0

    def add(self, group: str, judgement: Judgement) -> None:
        self.cases += 1
        for code, verdict in judgement.verdicts.items():
            self.by_rule[code][verdict] += 1
            self.by_group[group][code][verdict] += 1

    def spread(self, code: str) -> tuple[float, float] | None:
        rates = [r for g in self.by_group.values() if (r := rate(g.get(code, {}))) is not None]
        return (min(rates), max(rates)) if rates else None

    def record(self, **about: Any) -> dict[str, Any]:
        """The JSON record: ``about`` (command, date, seeds, cases per minute...) and each rule's counts and spread."""
        rules = {}
        for code in sorted(self.by_rule):
            counts = {v: self.by_rule[code][v] for v in VERDICTS}
            spread = self.spread(code)
            rules[code] = {**counts, "rate": rate(counts), "spread": list(spread) if spread else None}
        return {**about, "cases": self.cases, "rules": rules}


def load(path: Path) -> dict[str, Any] | None:
    """The record a bench run wrote, or None when there is none."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def line(entry: Mapping[str, Any]) -> str:
    """One rule's agreement in words: ``92% (23 of 25 judged cases; 2 false alarms; spread 88-100%)``."""
    r = entry.get("rate")
    judged = entry[AGREE] + entry[MISS] + entry[FALSE_ALARM]
    if r is None:
        return f"not judged yet ({_count(entry[UNTESTED], 'case')} where the engines stopped for another reason first)"
    parts = [_count(judged, "judged case")]
    if entry[MISS]:
        parts.append(_count(entry[MISS], "miss", "misses"))
    if entry[FALSE_ALARM]:
        parts.append(_count(entry[FALSE_ALARM], "false alarm"))
    if entry[UNTESTED]:
        parts.append(f"{entry[UNTESTED]} untested")
    low, high = entry.get("spread") or (r, r)
    parts.append(f"spread {round(low * 100)}-{round(high * 100)}%")
    return f"{round(r * 100)}% ({'; '.join(parts)})"


RECORD = "docs/difftier-agreement.json"
"""Where bench/difftier_bench.py ``--write`` keeps the record that docs/rules.md shows (relative to the repository)."""


def doc_lines(record: Mapping[str, Any] | None, predicts: Mapping[str, frozenset[str]]) -> tuple[dict[str, str], str]:
    """Each rule's agreement in words, and the paragraph naming the run (for ``gpufleet.lint.ruledoc.rules_markdown``).
    Rules that predict nothing say so; judged rules the run never reached say that."""
    if record is None:
        return {}, ""
    rules = record.get("rules", {})
    lines = {
        code: (
            "not judged by the engines (the rule predicts no engine outcome)"
            if not outcomes
            else line(rules[code])
            if code in rules
            else "no case of the last run reached it"
        )
        for code, outcomes in predicts.items()
    }
    note = (
        f"Each rule's **Engines agree** line is the differential tier's last long run (`{record['command']}`, "
        f"{record['date']}, seeds {', '.join(map(str, record['seeds']))}, {record['cases']} cases tried on the dev "
        f"stack's sandbox without the gang-admission controller, {record['casesPerMinute']} cases per minute): the share "
        "of judged cases where the rule's finding, or its silence, matched what the real engines did (docs/sandbox.md, "
        "\"The differential tier\"); a miss counts against each silent rule that predicts what the engines did, and "
        "the disagreements the tier lists as known count too. The spread is the lowest and highest share over the "
        "run's groups (fixtures, examples, each seed's generated shapes). Regenerate with `bench/difftier_bench.py --write "
        f"{RECORD}` and `scripts/gen_rules_doc.py`."
    )
    return lines, note
