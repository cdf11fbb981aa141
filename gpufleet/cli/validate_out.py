"""``gpufleet validate --format json|sarif``: a model's issues for scripts and code scanning, at their line and column.

Called by :func:`gpufleet.cli.fleet_cmds.validate`. Each issue is
:class:`~gpufleet.yamlin.errors.Issue` as the text output prints it, with the line and
column :mod:`gpufleet.yamlin.marks` found (``null`` for an issue about the whole file or
a YAML syntax error, whose place is in its ``path`` label). JSON:
``{"model", "valid", "counts", "issues": [{"line", "column", "path", "message", "fix"}]}``
(docs/schemas/validate.schema.json); SARIF 2.1.0: one result per issue, rule
``gpufleet-model``, its region the issue's line and column, as ``lint --format sarif``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpufleet import DOCS_URL, __version__
from gpufleet.model import Fleet, load_model
from gpufleet.render import render_all
from gpufleet.yamlin.errors import Issue, ModelError

RULE = "gpufleet-model"
DOCS = f"{DOCS_URL}/model.md"


def check(path: Path) -> tuple[Fleet | None, list[Issue]]:
    """The model and no issues, or None and every issue (validation, and names that collide once rendered)."""
    try:
        fleet = load_model(path)
        render_all(fleet)
    except ModelError as exc:
        return None, list(exc.issues)
    except ValueError as exc:
        return None, [Issue("(document)", str(exc))]
    return fleet, []


def counts(fleet: Fleet) -> dict[str, int]:
    return {
        "pools": len(fleet.pools),
        "teams": len(fleet.teams),
        "cohorts": len(fleet.cohorts),
        "priorityClasses": len(fleet.priority_classes),
    }


def _issue(issue: Issue) -> dict[str, Any]:
    line, column = issue.at or (None, None)
    return {"line": line, "column": column, "path": str(issue.path), "message": issue.message, "fix": issue.fix}


def _text(issue: Issue) -> str:
    """The issue as the text output prints it after ``file:line:column:`` (no path for one that has none)."""
    return issue.render()


def to_json(path: Path, fleet: Fleet | None, issues: list[Issue]) -> str:
    return (
        json.dumps(
            {
                "model": str(path),
                "valid": not issues,
                "counts": counts(fleet) if fleet else None,
                "issues": [_issue(i) for i in issues],
            },
            indent=2,
        )
        + "\n"
    )


def to_sarif(path: Path, issues: list[Issue]) -> str:
    from gpufleet.lint.sarif import SCHEMA, VERSION, artifact_uri

    uri = artifact_uri(str(path), Path.cwd())
    results = [
        {
            "ruleId": RULE,
            "ruleIndex": 0,
            "level": "error",
            "message": {"text": _text(i)},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri},
                        "region": {"startLine": (i.at or (1, 1))[0], "startColumn": (i.at or (1, 1))[1]},
                    }
                }
            ],
            "properties": {"path": str(i.path)},
        }
        for i in issues
    ]
    driver = {
        "name": "gpufleet",
        "version": __version__,
        "informationUri": DOCS,
        "rules": [
            {
                "id": RULE,
                "name": "FleetModel",
                "shortDescription": {"text": "The fleet model does not validate."},
                "fullDescription": {
                    "text": "A field, reference or sum of the fleet model that gpufleet validate "
                    "rejects (docs/model.md), at its line and column."
                },
                "helpUri": DOCS,
                "defaultConfiguration": {"level": "error"},
            }
        ],
    }
    document = {
        "$schema": SCHEMA,
        "version": VERSION,
        "runs": [{"tool": {"driver": driver}, "results": results, "columnKind": "unicodeCodePoints"}],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
