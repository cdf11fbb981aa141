"""SARIF 2.1.0 output of ``gpufleet lint --format sarif`` (GitHub code scanning).

Called by the CLI and tests. One run of the tool ``gpufleet``: the driver lists
every registered rule (short description = summary, full description = the rule
doc's "What it checks" section, help = the whole doc in Markdown, helpUri = the
rule's anchor in docs/rules.md), and each finding becomes a result with its
level, file and line (``physicalLocation``), the object and path
(``logicalLocations``), and an ``inSource`` suppression with the waiver reason when it
is waived.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpufleet import DOCS_URL, __version__
from gpufleet.lint.ruledoc import anchor, rule_markdown, sections
from gpufleet.lint.runner import Located, Report
from gpufleet.rules import registry
from gpufleet.rules.api import Rule

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"
RULES_DOC_URL = f"{DOCS_URL}/rules.md"


def rule_descriptor(rule: Rule) -> dict[str, Any]:
    full = sections(rule.doc).get("What it checks") or rule.summary
    return {
        "id": rule.code,
        "name": "".join(part.capitalize() for part in rule.name.split("-")),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": full},
        "help": {"text": f"{rule.summary} Fix: {rule.fix}", "markdown": rule_markdown(rule)},
        "helpUri": f"{RULES_DOC_URL}#{anchor(rule)}",
        "defaultConfiguration": {"level": rule.severity.value},
        "properties": {"tags": ["gpufleet", rule.family], "family": rule.family},
    }


def artifact_uri(file: str | None, base: Path | None) -> str:
    """The file as a forward-slash URI, relative to ``base`` (the repository root) when it lies below it."""
    if not file:
        return "stdin"
    path = Path(file)
    if base is not None and path.is_absolute():
        try:
            path = path.relative_to(base)
        except ValueError:
            pass
    return path.as_posix()


def _result(located: Located, index: dict[str, int], base: Path | None) -> dict[str, Any]:
    f = located.finding
    name = "/".join(p for p in (f.namespace, f.object_name) if p)
    logical = ":".join(p for p in (" ".join(p for p in (f.kind, name) if p), str(f.path)) if p)
    result: dict[str, Any] = {
        "ruleId": f.code,
        "ruleIndex": index[f.code],
        "level": f.severity.value,
        "message": {"text": f"{f.message} (fix: {f.fix})" if f.fix else f.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(f.file, base)},
                    "region": {"startLine": max(f.line or 1, 1)},
                },
                **({"logicalLocations": [{"fullyQualifiedName": logical, "kind": "object"}]} if logical else {}),
            }
        ],
        "properties": {
            "path": str(f.path),
            "kind": f.kind,
            "namespace": f.namespace,
            "name": f.object_name,
            **({"helmTemplate": located.template} if located.template else {}),
        },
    }
    if f.waived:
        result["suppressions"] = [{"kind": "inSource", "justification": f.waiver_reason or ""}]
    return result


def document(report: Report, base: Path | None = None) -> dict[str, Any]:
    rules = registry.all_rules()
    index = {rule.code: i for i, rule in enumerate(rules)}
    return {
        "$schema": SCHEMA,
        "version": VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "gpufleet",
                        "version": __version__,
                        "informationUri": RULES_DOC_URL,
                        "rules": [rule_descriptor(rule) for rule in rules],
                    }
                },
                "results": [_result(r, index, base) for r in report.results],
                "columnKind": "utf16CodeUnits",
            }
        ],
    }


def render(report: Report, base: Path | None = None) -> str:
    """SARIF text; absolute file paths below ``base`` (the CLI passes the working directory) become relative."""
    return json.dumps(document(report, base), indent=2, ensure_ascii=False) + "\n"
