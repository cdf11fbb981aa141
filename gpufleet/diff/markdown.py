"""A diff as Markdown (a pull-request comment) and as plain text lines: formatting only.

Called by ``gpufleet.cli.diff_cmds`` (``--format markdown``; the text format's rich
tables use the same rows via :func:`quota_cells` and :func:`step_cells`).
"""

from __future__ import annotations

from typing import Any

from gpufleet.diff import Diff

ICON = {"ok": "ok", "rejected": "REJECTED", "blocked": "BLOCKED"}
QUOTA_HEADER = ("team", "pool", "change", "nominal", "borrowing limit", "lending limit", "share %")
STEP_HEADER = ("#", "op", "kind", "name", "fields", "verdict", "reason")


def _pair(before: dict | None, after: dict | None, key: str) -> str:
    def one(side: dict | None) -> str:
        if side is None:
            return "-"
        value = side.get(key)
        return "none" if value is None else str(value)

    a, b = one(before), one(after)
    return a if a == b else f"{a} → {b}"


def quota_cells(row: dict[str, Any]) -> list[str]:
    before, after = row["before"], row["after"]
    return [
        row["team"],
        row["pool"],
        row["change"],
        *(_pair(before, after, k) for k in ("nominal", "borrowingLimit", "lendingLimit", "share")),
    ]


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text[-1] in ".!?)" else text + "."


def fix_groups(steps: list[dict[str, Any]]) -> list[tuple[str, list[int]]]:
    """Each distinct fix of the steps that are not ok, once, with the steps (``order``) it fixes, first seen first."""
    groups: dict[str, list[int]] = {}
    for step in steps:
        if step.get("fix") and step["verdict"] != "ok":
            groups.setdefault(step["fix"], []).append(step["order"])
    return list(groups.items())


def fix_lines(steps: list[dict[str, Any]]) -> list[str]:
    """``fix 1 (steps 4, 6): ...``: one line per distinct fix, which the step rows refer to by number."""
    return [
        f"fix {n} ({'step' if len(orders) == 1 else 'steps'} {', '.join(map(str, orders))}): {_sentence(fix)}"
        for n, (fix, orders) in enumerate(fix_groups(steps), 1)
    ]


def step_cells(step: dict[str, Any], width: int = 4, fixes: list[tuple[str, list[int]]] | None = None) -> list[str]:
    """One row of the steps table; a step that is not ok refers to its fix by number (see :func:`fix_lines`)."""
    fields = step["fields"][:width]
    more = f" (+{len(step['fields']) - width})" if len(step["fields"]) > width else ""
    name = f"{step['namespace']}/{step['name']}" if step.get("namespace") else str(step["name"])
    numbers = {fix: n for n, (fix, _) in enumerate(fixes or fix_groups([step]), 1)}
    see = f" See fix {numbers[step['fix']]}." if step.get("fix") in numbers and step["verdict"] != "ok" else ""
    reason = _sentence(step["reason"]) + see
    return [
        str(step["order"]),
        step["op"],
        str(step["kind"]),
        name,
        ", ".join(fields) + more,
        ICON[step["verdict"]],
        reason,
    ]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def to_markdown(diff: Diff, title: str) -> str:
    lines = [f"### gpufleet diff: {title}", ""]
    verdict = (
        "every step would be accepted"
        if diff.accepted
        else f"{diff.rejected} step(s) would be rejected, {diff.blocked} blocked"
    )
    lines += [
        f"**{len(diff.steps)} step(s); {verdict}.**"
        + ("" if diff.crds_checked else " (CRD schemas not checked: `--no-crds`)"),
        "",
    ]
    if diff.quota:
        lines += ["#### Quota", "", _row(list(QUOTA_HEADER)), _row(["---"] * len(QUOTA_HEADER))]
        lines += [_row(quota_cells(r)) for r in diff.quota] + [""]
    for moved in diff.namespaces:
        lines.append(f"- namespace `{moved['namespace']}` moves from team `{moved['from']}` to `{moved['to']}`")
    for pool in diff.pools:
        lines.append(f"- pool `{pool['pool']}`: {pool_change(pool, '→')}")
    if diff.namespaces or diff.pools:
        lines.append("")
    if diff.steps:
        lines += ["#### Steps (in `pulumi up` order)", "", _row(list(STEP_HEADER)), _row(["---"] * len(STEP_HEADER))]
        fixes = fix_groups(diff.steps)
        lines += [_row(step_cells(s, fixes=fixes)) for s in diff.steps]
        if fixes:
            lines += ["", *(f"- {line}" for line in fix_lines(diff.steps))]
    else:
        lines.append("No object changes.")
    return "\n".join(lines) + "\n"


def pool_change(pool: dict[str, Any], arrow: str) -> str:
    """One line for a changed pool: its size, system, gang placement and dedicated owner, before and after (the parts that change)."""
    before, after = pool["before"], pool["after"]
    parts = []
    if (before["nodes"], before["capacity"]) != (after["nodes"], after["capacity"]):
        parts.append(
            f"resized {before['nodes']} {arrow} {after['nodes']} nodes ({before['capacity']} {arrow} {after['capacity']} GPUs)"
        )
    if before.get("system") != after.get("system"):
        parts.append(f"system {before.get('system')} {arrow} {after.get('system')}")
    if before.get("placement", "per-pod") != after.get("placement", "per-pod"):
        parts.append(f"gang placement {before.get('placement', 'per-pod')} {arrow} {after.get('placement', 'per-pod')}")
    if before.get("dedicatedTo") != after.get("dedicatedTo"):
        parts.append(
            f"dedicated to {before.get('dedicatedTo') or '(shared)'} {arrow} {after.get('dedicatedTo') or '(shared)'}"
        )
    return "; ".join(parts)
