"""The whatif report: base and new side by side, per team and for the fleet, as JSON, Markdown or table rows.

Pure: replay logs in (one or more per model: ``--repeat``), plain data out. The JSON
(docs/schemas/whatif-run.schema.json) is ``{"timeScale", "models", "horizonSeconds": {"base", "new"}, "stopped",
"horizonCapSeconds", "scaled", "replayedAs", "teams": [{"team", "base", "new"}], "fleet": {"base", "new"}, "jobs",
"utilization", "fidelity", "warnings"}``; each side holds the headline numbers of
:class:`gpufleet.whatif.metrics.Metrics` (the median over repeats; a wait figure's ``...Censored`` flag is set when
it is a lower bound in any repeat) and, with more than one repeat, ``spread``: every number's min and max. ``jobs`` is
the per-job table (:mod:`gpufleet.whatif.perjob`). In the table rows a number zero (or empty) under both models is
left out, a censored wait is printed ``≥ N``. The CLI (``gpufleet.cli.whatif_cmds``) prints the table;
:mod:`gpufleet.whatif.plot` draws.
"""

from __future__ import annotations

from functools import partial
from statistics import median
from typing import Any, Callable, Sequence

from gpufleet.whatif import metrics, perjob, stop
from gpufleet.whatif.observed import ReplayLog

HEADLINE = (
    "submitted",
    "finished",
    "neverAdmitted",
    "stillWaiting",
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
CENSORED = {
    "waitP50Seconds": "waitP50Censored",
    "waitP95Seconds": "waitP95Censored",
    "waitMaxSeconds": "waitMaxCensored",
}
"""Each wait figure and the flag that says it is a lower bound."""


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
    for flag in CENSORED.values():
        out[flag] = any(r[flag] for r in runs)
    if spread:
        out["spread"] = spread
    return out


def _side(logs: Sequence[ReplayLog], pick: Callable[[ReplayLog], metrics.Metrics]) -> dict[str, Any]:
    return _combine([pick(log).as_dict() for log in logs])


def _utilization(log: ReplayLog) -> list[list[float]]:
    return [[round(t, 1), round(a, 4), round(u, 4)] for t, a, u, _ in metrics.utilization(log, samples=100)]


def to_json(
    base: Sequence[ReplayLog], new: Sequence[ReplayLog], replayed_as: dict[str, str], cap: float | None = None
) -> dict[str, Any]:
    """The report's JSON document (one replay log per repeat on each side); ``cap`` is the default horizon's cap
    (None when a ``--horizon`` was asked for)."""
    names = sorted(set().union(*(metrics.teams(log) for log in [*base, *new])))
    first = base[0]
    return {
        "timeScale": first.time_scale,
        "models": {"base": first.model, "new": new[0].model},
        "repeat": len(base),
        "horizonSeconds": {
            "base": round(max(g.horizon for g in base), 1),
            "new": round(max(g.horizon for g in new), 1),
        },
        "stopped": {"base": [g.stopped for g in base], "new": [g.stopped for g in new]},
        "horizonCapSeconds": None if cap is None else round(cap, 1),
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
        "jobs": perjob.to_json(base, new),
        "utilization": {"base": _utilization(first), "new": _utilization(new[0])},
        "fidelity": {"base": [metrics.fidelity(log) for log in base], "new": [metrics.fidelity(log) for log in new]},
        "warnings": [w for log in [*base, *new] for w in (stop.warning(log), metrics.behind(log)) if w],
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


def _value(side: dict[str, Any], key: str) -> str:
    text = _fmt(side.get(key))
    return f"≥ {text}" if key in CENSORED and side.get(CENSORED[key]) else text


def _changed(section: dict[str, Any], key: str) -> str:
    """The change; where a side is a lower bound, the change is bounded too: at least (new a bound) or at most
    (base a bound) the difference, and unknown when both are."""
    before, after = section["base"].get(key), section["new"].get(key)
    low_before = key in CENSORED and section["base"].get(CENSORED[key])
    low_after = key in CENSORED and section["new"].get(CENSORED[key])
    if low_before and low_after:
        return "both bounds"
    text = _change(before, after)
    if not (low_before or low_after) or before is None or after is None:
        return text
    return f"{'≤' if low_before else '≥'} {text or '0'}"


def rows(report: dict[str, Any]) -> list[list[str]]:
    """Table rows: team, number, base, new, change (the fleet last); a number zero or empty under both models is left
    out (folded), and so is a team with no jobs and nothing borrowed under either."""
    out = []
    sections = [*((t["team"], t) for t in report["teams"]), ("(fleet)", report["fleet"])]
    for name, section in sections:
        for key in HEADLINE:
            before, after = section["base"].get(key), section["new"].get(key)
            if not before and not after:
                continue
            out.append([name, key, _value(section["base"], key), _value(section["new"], key), _changed(section, key)])
    return out


def horizon_line(report: dict[str, Any]) -> str:
    """Each side's horizon and why it stopped, and the cap (text and Markdown)."""
    sides = "; ".join(
        f"{side} {report['horizonSeconds'][side]:g} trace s ({', '.join(sorted(set(report['stopped'][side])))})"
        for side in ("base", "new")
    )
    cap = report["horizonCapSeconds"]
    limit = f"until every job finished or none could start, at most {cap:g} trace s" if cap is not None else "--horizon"
    return f"horizon ({limit}): {sides}"


FOLDED = "numbers zero under both models are left out (--format json has them all)"


HEADER = ["team", "number", "base", "new", "change"]


def _table(header: list[str], body: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(cell or " " for cell in row) + " |" for row in body),
    ]


def to_markdown(report: dict[str, Any]) -> str:
    """A pull-request comment: the models, the scale, then one table (as ``gpufleet diff --format markdown``)."""
    lines = [
        f"### gpufleet whatif: {report['models']['base']} -> {report['models']['new']}",
        "",
        f"Time scale {report['timeScale']:g} trace seconds per wall second, {report['repeat']} replay(s) a model. "
        f"Times are in trace seconds; {horizon_line(report)}; ≥ marks a lower bound (jobs still waiting).",
        "",
        *_table(HEADER, rows(report)),
        "",
        f"({FOLDED}.)",
        "",
    ]
    jobs, left_out = perjob.rows(report["jobs"])
    lines += _table(perjob.HEADER, jobs)
    if left_out:
        lines += ["", f"({left_out} more job(s) whose wait changed less: --format json lists every job.)"]
    for warning in report["warnings"]:
        lines += ["", f"**Warning:** {warning}"]
    if report["replayedAs"]:
        lines += ["", "Replayed as: " + "; ".join(f"{k} as {v}" for k, v in sorted(report["replayedAs"].items())) + "."]
    return "\n".join(lines) + "\n"
