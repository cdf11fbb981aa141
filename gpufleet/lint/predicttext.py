"""The text form of ``gpufleet predict``: one block per object, as people read a contract.

Called by the CLI and tests; reads the same dictionaries as the JSON form
(:func:`gpufleet.lint.predictout.document`), so the two never say different things.
"""

from __future__ import annotations

from typing import Any

from gpufleet.lint.predict import PredictReport
from gpufleet.lint.predictout import document


def _from(value: str | None) -> str:
    return f" [{value}]" if value else ""


def _bound(bound: int | None) -> str:
    return "unbounded" if bound is None else f"up to {bound}"


def _pod_sets(obj: dict[str, Any]) -> list[str]:
    lines = []
    for p in obj["podSets"]:
        gpus = f", {p['gpusPerPod']} GPU each ({', '.join(p['gpuResources'])})" if p["gpuResources"] else ""
        when = (
            "at start"
            if p["existsAtStart"]
            else "after "
            + "; ".join(f"{', '.join(a['of'])} {a['condition']}{_from(a['from'])}" for a in p["createdAfter"])
        )
        lines.append(f"    {p['name']}: {p['count']} {p['role']} pod(s){gpus}, {when}{_from(p['countFrom'])}")
    return lines


def _groups(obj: dict[str, Any]) -> list[str]:
    return [
        f"    {g['backend']} group {g['name'] or '(unnamed)'} by {g['creator']}: minimum {g['minimum']}"
        f"{_from(g['minimumFrom'])}, members {', '.join(g['members']) or '-'}"
        + (f", queue {g['queue']}" if g["queue"] else "")
        for g in obj["groups"]
    ]


def _block(obj: dict[str, Any]) -> list[str]:
    where = f"{obj['file']}:{obj['line']}" + (f" {obj['at']}" if obj["at"] else "")
    name = f"{obj['namespace']}/{obj['name']}" if obj["namespace"] else str(obj["name"])
    lines = [f"{where}: {obj['kind']} {name}"]
    if not obj["known"]:
        return lines + [f"  unknown: {note}" for note in obj["notes"]]
    lines.append(f"  reader: {obj['reader']}")
    if obj["podSets"]:
        lines += ["  pod sets:", *_pod_sets(obj)]
    if obj["groups"]:
        lines += ["  groups:", *_groups(obj)]
    a = obj["admission"]
    bounds = f" (minimum {a['minimum']}, maximum {a['maximum']})" if a["minimum"] is not None else ""
    lines.append(f"  admission: {a['unit']} by {a['by']}{bounds}{_from(a['from'])}")
    failure = obj["onRankFailure"]
    if failure is not None:
        chain = "; then ".join(
            f"{s['layer']}: {s['scope']}{'' if s['scope'] == 'stop' else ' ' + _bound(s['bound'])}{_from(s['from'])}"
            for s in failure["steps"]
        )
        lines.append(f"  one failed {failure['podSet']} pod: {failure['scope']} ({chain})")
    t = obj["onTerminalFailure"]
    lines.append(
        f"  terminal failure: {'survivors stop' if t['survivorsStop'] else 'survivors keep running'}{_from(t['from'])}"
    )
    s = obj["success"]
    lines.append(
        f"  success: {s['criterion']}" + (f" ({s['count']})" if s["count"] is not None else "") + _from(s["from"])
    )
    schedulers = ", ".join(f"{p['podSet']} -> {p['scheduler']}" for p in obj["placement"]["schedulers"])
    if schedulers:
        lines.append(
            f"  placement: {schedulers}"
            + (f", topology {obj['placement']['topology']}" if obj["placement"]["topology"] else "")
        )
    lines += [f"  note: {note}" for note in obj["notes"]]
    return lines + _invariants(obj)


def _invariants(obj: dict[str, Any]) -> list[str]:
    broken = [v for v in obj["invariants"] if not v["holds"]]
    lines = [f"  invariants: {len(obj['invariants']) - len(broken)} of {len(obj['invariants'])} hold"]
    for v in broken:
        lines.append(f"    {v['number']} {v['name']}: violated")
        lines += [f"      {why}" for why in v["why"]]
    lines += [
        f"  other finding: {f['code']} {f['path']}: {f['message']}" for f in obj["otherFindings"] if not f["waived"]
    ]
    return lines


def render(report: PredictReport) -> str:
    """The text form: one block per object, a blank line between blocks."""
    return "\n".join("\n".join(_block(obj)) + "\n" for obj in document(report)["objects"])
