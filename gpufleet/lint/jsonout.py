"""JSON output of ``gpufleet lint --format json``.

Called by the CLI and tests. One object: ``{"findings": [Finding.to_json() plus
"template" (the helm template, or null)], "summary": {"files", "objects", "errors",
"warnings", "waived"}}``.
"""

from __future__ import annotations

import json
from typing import Any

from gpufleet.lint.runner import Report


def document(report: Report) -> dict[str, Any]:
    return {
        "findings": [{**r.finding.to_json(), "template": r.template} for r in report.results],
        "summary": report.summary(),
    }


def render(report: Report) -> str:
    return json.dumps(document(report), indent=2, ensure_ascii=False) + "\n"
