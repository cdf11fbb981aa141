"""The whatif report: base and new side by side, per team and for the fleet, as JSON, Markdown or table rows.

Pure: replay logs in (one or more per model: ``--repeat``), plain data out. The JSON
(docs/schemas/whatif-run.schema.json) is ``{"timeScale", "models", "scaled", "replayedAs",
"teams": [{"team", "base", "new"}], "fleet": {"base", "new"}, "utilization", "fidelity", "warnings"}``; each side
holds the headline numbers of :class:`gpufleet.whatif.metrics.Metrics` (the median over
repeats) and, with more than one repeat, ``spread``: every number's min and max. The CLI
(``gpufleet.cli.whatif_cmds``) prints the table; :mod:`gpufleet.whatif.plot` draws.
"""

from __future__ import annotations

from functools import partial
from statistics import median
from typing import Any, Callable, Sequence

from gpufleet.whatif import metrics
from gpufleet.whatif.observed import ReplayLog

HEADLINE = (
    "submitted",
    "finished",
    "neverAdmitted",
    "waitP50Seconds",
    "waitP95Seconds",
    "waitMaxSeconds",
    "gpuHours",
    "borrowedGpuHours",
    "preemptions",
    "preemptedGpuHours",
    "podsReadyEvictions",
    "requeues",
    "partialGangGpuHours",
)
"""The numbers of each side, in table order (JSON keys)."""


def _combine(runs: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    spread: dict[str, Any] = {}
    for key in HEADLINE:
        values = [r[key] for r in runs if r[key] is not None]
        out[key] = None if not values else (median(values) if len(values) > 1 else values[0])
        if len(runs) > 1:
            spread[key] = {"min": round(min(values), 3), "max": round(max(values), 3)} if values else None
    for key in (
        "waitP50Seconds",
        "waitP95Seconds",
        "waitMaxSeconds",
        "gpuHours",
        "borrowedGpuHours",
        "preemptedGpuHours",
        "partialGangGpuHours",
    ):
        if out[key] is not None:
            out[key] = round(float(out[key]), 3)
    if spread:
        out["spread"] = spread
    return out


def _side(logs: Sequence[ReplayLog], pick: Callable[[ReplayLog], metrics.Metrics]) -> dict[str, Any]:
    return _combine([pick(log).as_dict() for log in logs])


def _utilization(log: ReplayLog) -> list[list[float]]:
    return [[round(t, 1), round(a, 4), round(u, 4)] for t, a, u, _ in metrics.utilization(log, samples=100)]


def to_json(base: Sequence[ReplayLog], new: Sequence[ReplayLog], replayed_as: dict[str, str]) -> dict[str, Any]:
    """The report's JSON document (one replay log per repeat on each side)."""
    names = sorted(set().union(*(metrics.teams(log) for log in [*base, *new])))
    first = base[0]
    return {
        "timeScale": first.time_scale,
        "models": {"base": first.model, "new": new[0].model},
        "repeat": len(base),
        "horizonSeconds": round(first.horizon, 1),
        "scaled": {
            "base": [{"name": n, "traceSeconds": t, "wallSeconds": w} for n, t, w in first.scaled],
            "new": [{"name": n, "traceSeconds": t, "wallSeconds": w} for n, t, w in new[0].scaled],
        },
        "replayedAs": replayed_as,
        "teams": [
            {
                "team": name,
                "base": _side(base, partial(metrics.team_metrics, team=name)),
                "new": _side(new, partial(metrics.team_metrics, team=name)),
            }
            for name in names
        ],
        "fleet": {"base": _side(base, metrics.fleet_metrics), "new": _side(new, metrics.fleet_metrics)},
        "utilization": {"base": _utilization(first), "new": _utilization(new[0])},
        "fidelity": {"base": [metrics.fidelity(log) for log in base], "new": [metrics.fidelity(log) for log in new]},
        "warnings": [w for log in [*base, *new] if (w := metrics.behind(log))],
    }


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _change(before: Any, after: Any) -> str:
    if before is None or after is None or before == after:
        return "" if before == after else "changed"
    delta = after - before
    return f"{'+' if delta > 0 else ''}{_fmt(delta)}"


def rows(report: dict[str, Any]) -> list[list[str]]:
    """Table rows: team, number, base, new, change (the fleet last)."""
    out = []
    sections = [*((t["team"], t) for t in report["teams"]), ("(fleet)", report["fleet"])]
    for name, section in sections:
        for key in HEADLINE:
            before, after = section["base"].get(key), section["new"].get(key)
            out.append([name, key, _fmt(before), _fmt(after), _change(before, after)])
    return out


HEADER = ["team", "number", "base", "new", "change"]


def to_markdown(report: dict[str, Any]) -> str:
    """A pull-request comment: the models, the scale, then one table (as ``gpufleet diff --format markdown``)."""
    lines = [
        f"### gpufleet whatif: {report['models']['base']} -> {report['models']['new']}",
        "",
        f"Time scale {report['timeScale']:g} trace seconds per wall second, {report['repeat']} replay(s) a model, "
        f"horizon {report['horizonSeconds'] / 3600:.2f} trace hours. Times are in trace seconds.",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
    ]
    lines += ["| " + " | ".join(cell or " " for cell in row) + " |" for row in rows(report)]
    for warning in report["warnings"]:
        lines += ["", f"**Warning:** {warning}"]
    if report["replayedAs"]:
        lines += ["", "Replayed as: " + "; ".join(f"{k} as {v}" for k, v in sorted(report["replayedAs"].items())) + "."]
    return "\n".join(lines) + "\n"
