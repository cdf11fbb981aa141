"""JSON output of ``gpufleet lint --format json``.

Called by the CLI and tests. One object: ``{"findings": [Finding.to_json() plus
"template" (the helm template, or null)], "summary": {"files", "objects", "errors",
"warnings", "waived"}}``, laid out as ``json.dumps(..., indent=2, ensure_ascii=False)``
lays it out. :func:`chunks` writes it in pieces of a thousand findings with orjson (the
standard library's encoder takes its slow pure-Python path when it indents, ~15x slower),
so a large report is never one dict per finding and one string at once; text orjson
refuses (a lone surrogate) goes through the standard library instead.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

import orjson

from gpufleet.lint.runner import Located, Report

BATCH = 1000


def _finding(r: Located) -> dict[str, Any]:
    return {**r.finding.to_json(), "template": r.template}


def document(report: Report) -> dict[str, Any]:
    return {"findings": [_finding(r) for r in report.results], "summary": report.summary()}


def _indented(value: Any) -> str:
    """``value`` as ``json.dumps(value, indent=2, ensure_ascii=False)`` writes it."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:  # orjson.JSONEncodeError: a lone surrogate, an integer beyond 64 bits
        return json.dumps(value, indent=2, ensure_ascii=False)


def chunks(report: Report) -> Iterator[str]:
    """The JSON document in pieces whose concatenation is :func:`render`'s text."""
    results = report.results
    yield '{\n  "findings": ['
    for start in range(0, len(results), BATCH):
        batch = _indented([_finding(r) for r in results[start : start + BATCH]])
        # "[\n  {...},\n  {...}\n]" -> its items, two columns deeper (each is one level deeper in the document)
        yield ("\n" if start == 0 else ",\n") + "  " + batch[2:-2].replace("\n", "\n  ")
    yield (
        ("\n  ]" if results else "]") + ',\n  "summary": ' + _indented(report.summary()).replace("\n", "\n  ") + "\n}\n"
    )


def render(report: Report) -> str:
    return "".join(chunks(report))
