"""The per-job table of the whatif report: each job's submission, start and wait under the base and the new model.

Pure: replay logs in (one per repeat on each side), plain data out. A job that had not started by its side's horizon
shows "not started by the horizon" and its wait so far, marked as a lower bound (:mod:`gpufleet.whatif.waits`); one
the API server refused shows "refused". With repeats a side gives the median start and wait over them (a job not
started in some repeat counts as not started, its wait a lower bound). The text and Markdown show the ``SHOWN`` jobs
whose wait changed most; the JSON has every job. Called by :mod:`gpufleet.whatif.report`.
"""

from __future__ import annotations

from statistics import median
from typing import Any, Sequence

from gpufleet.whatif import metrics
from gpufleet.whatif.observed import JobLog, ReplayLog

SHOWN = 40
"""Jobs in the text and Markdown tables (largest change first); the JSON lists them all."""
NOT_STARTED = "not started by the horizon"
HEADER = ["job", "team", "submitted", "base start", "base wait", "new start", "new wait", "change"]


def _side(entries: Sequence[tuple[JobLog, float]]) -> dict[str, Any]:
    starts = [metrics.start(job, horizon) for job, horizon in entries]
    waits = [w for job, horizon in entries if (w := metrics.wait(job, horizon)) is not None]
    started = all(s is not None for s in starts)
    return {
        "startSeconds": round(median([s for s in starts if s is not None]), 1) if started else None,
        "waitSeconds": round(median(w.seconds for w in waits), 1) if waits else None,
        "waitCensored": any(w.censored for w in waits),
        "refused": any(job.refused for job, _ in entries),
        "finished": all(job.finished is not None and job.finished <= horizon for job, horizon in entries),
    }


def _entries(logs: Sequence[ReplayLog], key: tuple[str, str]) -> list[tuple[JobLog, float]]:
    return [(job, log.horizon) for log in logs for job in log.jobs if (job.namespace, job.name) == key]


def to_json(base: Sequence[ReplayLog], new: Sequence[ReplayLog]) -> list[dict[str, Any]]:
    """One entry per trace job, in submit order: its submission and each side's start, wait and finish."""
    out = []
    for job in base[0].jobs:
        key = (job.namespace, job.name)
        before, after = _side(_entries(base, key)), _side(_entries(new, key))
        change = None
        if before["waitSeconds"] is not None and after["waitSeconds"] is not None:
            change = round(after["waitSeconds"] - before["waitSeconds"], 1)
        out.append(
            {
                "job": f"{job.namespace}/{job.name}",
                "team": job.team,
                "submitSeconds": round(job.submitted, 1),
                "base": before,
                "new": after,
                "waitChangeSeconds": change,
            }
        )
    return out


def _start(side: dict[str, Any]) -> str:
    if side["refused"]:
        return "refused"
    return NOT_STARTED if side["startSeconds"] is None else f"{side['startSeconds']:g}"


def _wait(side: dict[str, Any]) -> str:
    if side["waitSeconds"] is None:
        return "-"
    return f"{'≥ ' if side['waitCensored'] else ''}{side['waitSeconds']:g}"


def _change(row: dict[str, Any]) -> str:
    delta = row["waitChangeSeconds"]
    if delta is None:
        return ""
    before, after = row["base"]["waitCensored"], row["new"]["waitCensored"]
    if before and after:
        return "both still waiting"
    text = "0" if delta == 0 else f"{'+' if delta > 0 else ''}{delta:g}"
    return f"≥ {text}" if after else f"≤ {text}" if before else text


def rows(jobs: list[dict[str, Any]], shown: int = SHOWN) -> tuple[list[list[str]], int]:
    """(table rows of the ``shown`` jobs whose wait changed most, in submit order; how many jobs were left out)."""

    def weight(row: dict[str, Any]) -> float:
        delta = row["waitChangeSeconds"]
        return abs(delta) if delta is not None else float("inf")

    kept = sorted(sorted(jobs, key=weight, reverse=True)[:shown], key=lambda r: r["submitSeconds"])
    out = [
        [r["job"], r["team"], f"{r['submitSeconds']:g}", _start(r["base"]), _wait(r["base"]), _start(r["new"]),
         _wait(r["new"]), _change(r)]
        for r in kept
    ]  # fmt: skip
    return out, len(jobs) - len(kept)
