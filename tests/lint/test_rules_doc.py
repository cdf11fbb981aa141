"""docs/rules.md is generated from the registry and must not be stale."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gpufleet.difftier.tally import RECORD, doc_lines, load
from gpufleet.lint.ruledoc import rules_markdown, sections
from gpufleet.rules import registry

REPO = Path(__file__).resolve().parents[2]


def expected() -> str:
    lines, note = doc_lines(load(REPO / RECORD), {r.code: r.predicts or frozenset() for r in registry.all_rules()})
    return rules_markdown(registry.all_rules(), lines, note)


def test_docs_rules_md_matches_the_registry_and_the_differential_tiers_record():
    doc = REPO / "docs" / "rules.md"
    assert doc.exists(), "docs/rules.md is missing: run python scripts/gen_rules_doc.py"
    assert doc.read_text(encoding="utf-8") == expected(), "docs/rules.md is stale: run python scripts/gen_rules_doc.py"


def test_every_rule_says_how_often_the_engines_agreed_with_it_or_that_they_do_not_judge_it():
    text = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert (REPO / RECORD).exists(), f"{RECORD} is missing: run bench/difftier_bench.py --write {RECORD}"
    assert text.count("**Engines agree:**") == len(registry.all_rules())


def test_the_generator_check_mode_agrees():
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_rules_doc.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_every_rule_doc_splits_into_its_four_sections():
    for rule in registry.all_rules():
        assert list(sections(rule.doc)) == ["What it checks", "Why it is unsafe", "Example", "Preferred form"], (
            rule.code
        )


def test_the_enforcement_column_names_the_api_server_exactly_for_the_rules_with_a_cel_form():
    from gpufleet.lint.ruledoc import enforced_by

    rules = registry.all_rules()
    assert [r.code for r in rules if "API server" in enforced_by(r)] == [r.code for r in rules if r.cel is not None]
    assert "webhook" not in enforced_by(registry.get("GANG501"))  # a Kueue ConfigMap: no webhook is sent one
    assert enforced_by(registry.get("GANG001")) == ["policy pack", "lint", "webhook", "API server"]
