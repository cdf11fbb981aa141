"""The JSON and text forms of ``gpufleet predict`` (:class:`gpufleet.lint.predict.PredictReport`).

Called by the CLI and tests. The JSON form follows ``docs/schemas/predict.schema.json``: camelCase
keys, numbers as numbers, ``null`` for "none", each provenance as one string (the path written, or
the upstream function and tag that derives the value, with how in brackets). The text form is one
block per object, in file order.
"""

from __future__ import annotations

import json
from typing import Any

from gpufleet.lint.predict import Prediction, PredictReport
from gpufleet.rules.api import Finding
from gpufleet.workloads.contract.types import Contract, PodSet, Provenance


def origin(found: Provenance) -> str | None:
    """A provenance as one string: ``spec.minAvailable``, ``<function at tag> (how)``, or its note alone; None when unknown."""
    if found.path is None and not found.derived:
        return found.note
    return f"{found}" + (f" ({found.note})" if found.note else "")


def _pod_set(p: PodSet) -> dict[str, Any]:
    return {
        "name": p.name,
        "role": p.role,
        "count": p.count,
        "countFrom": origin(p.count_from),
        "gpusPerPod": float(p.gpus_per_pod)
        if p.gpus_per_pod != p.gpus_per_pod.to_integral_value()
        else int(p.gpus_per_pod),
        "gpuResources": list(p.gpu_resources),
        "existsAtStart": p.exists_at_start,
        "createdAfter": [
            {"of": list(a.of), "condition": a.condition, "from": origin(a.origin)} for a in p.created_after
        ],
    }


def _contract(c: Contract) -> dict[str, Any]:
    failure = c.on_rank_failure
    return {
        "podSets": [_pod_set(p) for p in c.pod_sets],
        "groups": [
            {
                "name": g.name,
                "backend": g.backend,
                "creator": g.creator,
                "scope": g.scope,
                "members": list(g.members),
                "minimum": g.minimum,
                "minimumFrom": origin(g.minimum_from),
                "queue": g.queue,
            }
            for g in c.groups
        ],
        "admission": {
            "unit": c.admission.unit,
            "by": c.admission.by,
            "minimum": c.admission.minimum,
            "maximum": c.admission.maximum,
            "from": origin(c.admission.origin),
        },
        "onRankFailure": None
        if failure is None
        else {
            "podSet": failure.pod_set,
            "scope": failure.scope,
            "bound": failure.first.bound if failure.first else None,
            "by": failure.first.layer if failure.first else None,
            "steps": [
                {"layer": s.layer, "scope": s.scope, "bound": s.bound, "from": origin(s.origin)} for s in failure.steps
            ],
        },
        "onTerminalFailure": {"survivorsStop": c.terminal.survivors_stop, "from": origin(c.terminal.origin)},
        "success": {
            "criterion": c.success.criterion,
            "targets": list(c.success.targets),
            "count": c.success.count,
            "from": origin(c.success.origin),
        },
        "placement": {
            "schedulers": [{"podSet": name, "scheduler": scheduler} for name, scheduler in c.placement.schedulers],
            "topology": c.placement.topology,
            "exclusiveTopology": c.placement.exclusive_topology,
        },
    }


def _finding(f: Finding) -> dict[str, Any]:
    return {"code": f.code, "path": str(f.path), "message": f.message, "waived": f.waived}


def _prediction(p: Prediction) -> dict[str, Any]:
    c = p.contract
    return {
        "file": p.file,
        "line": p.line,
        "at": str(p.at) or None,
        "apiVersion": c.api_version,
        "kind": c.kind,
        "name": c.name,
        "namespace": c.namespace,
        "known": c.known,
        "reader": c.reader,
        **_contract(c),
        "notes": list(c.notes),
        "invariants": [
            {
                "number": v.invariant.number,
                "name": v.invariant.name,
                "holds": v.holds,
                "codes": list(v.codes),
                "why": list(v.why),
            }
            for v in p.verdicts
        ],
        "otherFindings": [_finding(f) for f in p.other_findings],
    }


def document(report: PredictReport) -> dict[str, Any]:
    problems = [r.finding for r in report.problems]
    return {
        "objects": [_prediction(p) for p in report.predictions],
        "problems": [{"file": f.file, "line": f.line, "message": f.message, "fix": f.fix} for f in problems],
        "summary": {
            "files": report.files,
            "objects": len(report.predictions),
            "unknown": sum(1 for p in report.predictions if not p.contract.known),
            "violated": sum(1 for p in report.predictions for v in p.verdicts if not v.holds),
        },
    }


def render_json(report: PredictReport) -> str:
    return json.dumps(document(report), indent=2, ensure_ascii=False) + "\n"
