"""Builders for the whatif tests: trace lines, pod spans and replay logs written by hand."""

from __future__ import annotations

import json
from pathlib import Path

from gpufleet.model import Fleet, load_model
from gpufleet.whatif.observed import JobLog, PodSpan, ReplayLog

DEV = Path(__file__).resolve().parents[2] / "stacks" / "dev.fleet.yaml"


def dev() -> Fleet:
    return load_model(DEV)


def line(**fields) -> str:
    base = {"submitSeconds": 0, "namespace": "alpha", "kind": "Job", "pods": 2, "gpusPerPod": 8, "runSeconds": 600}
    return json.dumps({**base, **fields})


def job(
    name: str = "j",
    team: str = "alpha",
    pods: int = 2,
    gpus: int = 8,
    submitted: float = 0.0,
    spans: list[tuple[float | None, float | None, float | None]] = (),
    pool: str = "l4",
    **extra,
) -> JobLog:
    """A job whose pods are (bound, running, ended) triples, in trace seconds."""
    log = JobLog(name, team, team, pods, gpus, submitted, **extra)
    for i, (bound, running, ended) in enumerate(spans):
        log.spans[f"{name}-{i}"] = PodSpan(f"{name}-{i}", gpus, pool, bound, running, ended)
    return log


def replay_log(*jobs: JobLog, horizon: float = 3600.0, nominal: dict | None = None) -> ReplayLog:
    return ReplayLog(
        "m", 60.0, horizon, {"l4": 32}, nominal if nominal is not None else {("alpha", "l4"): 16.0}, list(jobs)
    )
