"""Golden test: every upstream example manifest linted (with the real CRDs) against tests/lint/golden/upstream.json.

The golden file is written by ``GPUFLEET_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/lint/test_golden.py``
and reviewed by hand; the test then fails on any new, lost or moved finding. Messages are left out so
rewording a message does not churn the file; code, object, path and line are compared.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from gpufleet.lint import lint
from gpufleet.rules.api import CheckContext
from gpufleet.settings import load_crds

GOLDEN = Path(__file__).resolve().parent / "golden" / "upstream.json"


def snapshot(upstream_dir: Path, crds_dir: Path) -> dict:
    report = lint([str(upstream_dir)], CheckContext(crds=load_crds(str(crds_dir))))
    rows = [
        {
            "file": str(Path(f.file or "").relative_to(upstream_dir)),
            "line": f.line,
            "code": f.code,
            "severity": f.severity.value,
            "kind": f.kind,
            "name": f.object_name,
            "path": str(f.path),
            "waived": f.waived,
        }
        for f in report.findings
    ]
    return {"summary": report.summary(), "findings": rows}


def test_the_upstream_examples_give_the_reviewed_findings(upstream_dir, crds_dir):
    got = snapshot(upstream_dir, crds_dir)
    if os.environ.get("GPUFLEET_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(got, indent=1) + "\n", encoding="utf-8")
    assert GOLDEN.exists(), (
        "no golden file: run with GPUFLEET_UPDATE_GOLDEN=1 and review tests/lint/golden/upstream.json"
    )
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert got["summary"] == expected["summary"]
    assert got["findings"] == expected["findings"]


def test_no_upstream_example_crashes_a_rule(upstream_dir, crds_dir):
    report = lint([str(upstream_dir)], CheckContext(crds=load_crds(str(crds_dir))))
    assert [f for f in report.findings if "internal error" in f.message] == []
