#!/usr/bin/env python3
"""Generate docs/rules.md from the rule registry (every rule's module docstring) and the differential tier's record.

Usage: ``.venv/bin/python scripts/gen_rules_doc.py`` rewrites docs/rules.md;
``--check`` exits 1 (and says so) when docs/rules.md is stale. tests/lint/test_rules_doc.py
runs the same comparison, so a rule change without a regenerated doc fails the tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from gpufleet.difftier.tally import RECORD, doc_lines, load  # noqa: E402
from gpufleet.lint.ruledoc import rules_markdown  # noqa: E402
from gpufleet.rules import registry  # noqa: E402

DOC = REPO / "docs" / "rules.md"


def render() -> str:
    """The reference, with each rule's agreement from the differential tier's record (docs/difftier-agreement.json)."""
    lines, note = doc_lines(load(REPO / RECORD), {r.code: r.predicts or frozenset() for r in registry.all_rules()})
    return rules_markdown(registry.all_rules(), lines, note)


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not DOC.exists() or DOC.read_text(encoding="utf-8") != text:
            print(f"{DOC.relative_to(REPO)} is stale: run python scripts/gen_rules_doc.py", file=sys.stderr)
            return 1
        print(f"{DOC.relative_to(REPO)} is up to date")
        return 0
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote {DOC.relative_to(REPO)} ({len(registry.all_rules())} rules)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
