"""The job trace: JSON Lines, one job a line, versioned by an optional header line.

Read by ``gpufleet whatif`` (replay), written by :mod:`gpufleet.whatif.synth` and
:mod:`gpufleet.whatif.fromcluster`. The format (docs/whatif.md, "Trace format"):

    {"gpufleetTrace": "v1"}
    {"submitSeconds": 0, "namespace": "alpha", "kind": "Job", "pods": 4, "gpusPerPod": 8, "runSeconds": 3600}

Keys are camelCase like every other gpufleet JSON. A trace is checked against the fleet
model it will be replayed on (each namespace a team's, each kind one its engine runs);
every problem is reported as ``line N: field`` with the fix, and nothing is replayed
while any remains (:class:`TraceError`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gpufleet.model import ownership
from gpufleet.model.fleet import Fleet
from gpufleet.util.boundedread import TooLarge, read_bounded_text
from gpufleet.util.camel import camel
from gpufleet.yamlin.errors import Issue, ModelError

VERSION = "v1"
HEADER_KEY = "gpufleetTrace"
KINDS = ("Job", "VolcanoJob", "JobSet", "PyTorchJob")
KUEUE_KINDS = ("Job", "JobSet", "PyTorchJob")
MAX_LINES = 100_000
MAX_BYTES = 64 * 2**20
"""The largest trace file read: 100,000 lines of a few hundred bytes fit well within it."""
MAX_SECONDS = 366 * 24 * 3600
"""The longest time a trace line may give (a submit time, a run, a start, a failure): a year. Without it a line could
set the default horizon's cap (``gpufleet.whatif.stop.default_cap``) to an endless replay."""


class TraceJob(BaseModel):
    """One job of a trace. Times are trace seconds (the cluster's clock, before any time scale)."""

    model_config = ConfigDict(
        extra="forbid", alias_generator=camel, populate_by_name=True, frozen=True, allow_inf_nan=False
    )

    submit_seconds: float = Field(ge=0, le=MAX_SECONDS)
    """When the job is submitted, in seconds from the trace's start."""
    namespace: str = Field(min_length=1)
    """A team namespace of the model: it routes the job to that team's queue."""
    kind: Literal["Job", "VolcanoJob", "JobSet", "PyTorchJob"]
    """The workload kind a user of that team submits."""
    pods: int = Field(ge=1, le=10_000)
    """Pods (ranks) of the job: every one must run for the job to make progress (a gang)."""
    gpus_per_pod: int = Field(ge=0, le=64)
    """GPUs each pod requests."""
    run_seconds: float = Field(gt=0, le=MAX_SECONDS)
    """How long the job runs once all its ranks run (each pod completes this long after it is Running)."""
    cpu_per_pod: str | None = None
    """CPU request per pod (a Kubernetes quantity); unset = none beyond the GPUs."""
    memory_per_pod: str | None = None
    """Memory request per pod (a Kubernetes quantity); unset = none."""
    priority_class: str | None = None
    """One of the model's priorityClasses; unset = the team's default."""
    name: str | None = Field(default=None, pattern=r"^[a-z0-9]([-a-z0-9]{0,40}[a-z0-9])?$")
    """The job's name; unset = ``j<line>``."""
    pool: str | None = None
    """The pool the job asks for (a pool the team has quota on); unset = Kueue's or Volcano's choice."""
    start_seconds: float | None = Field(default=None, gt=0, le=MAX_SECONDS)
    """How long each pod takes from being bound to Running and Ready (image pull, init, data loading): the start
    Kueue's ``waitForPodsReady.timeout`` waits for; unset = at once."""
    fail_at_seconds: float | None = Field(default=None, gt=0, le=MAX_SECONDS)
    """A rank fails this long after the job started running: the job-level restart is exercised."""
    min_pods: int | None = Field(default=None, ge=1)
    """An elastic job: it runs once this many of its pods run (a VolcanoJob's ``minAvailable``); unset = all pods."""

    @property
    def needed(self) -> int:
        return needed(self.pods, self.min_pods)


def needed(pods: int, min_pods: int | None) -> int:
    """Pods that must run at once for a job to run: all of them, or an elastic job's ``min_pods``
    (:attr:`TraceJob.needed`, ``gpufleet.whatif.observed.JobLog.needed``)."""
    return min_pods or pods


KEYS = tuple(field.alias or name for name, field in TraceJob.model_fields.items())
"""The keys a trace line may have, in the documented order."""


class Trace(BaseModel):
    """A whole trace, in submit order."""

    model_config = ConfigDict(frozen=True)

    jobs: tuple[TraceJob, ...]

    @property
    def horizon_seconds(self) -> float:
        """When the last job would finish if every job started at once: the replay's natural end."""
        return max((j.submit_seconds + j.run_seconds for j in self.jobs), default=0.0)


class TraceError(ModelError):
    """A trace that cannot be replayed: every problem, at ``line N: field``."""


def named(job: TraceJob) -> str:
    """The name of a loaded trace's job (:func:`parse_trace` names every job, :func:`job_name`)."""
    if job.name is None:
        raise ValueError("an unnamed trace job: read traces with parse_trace or load_trace, which name every job")
    return job.name


def job_name(job: TraceJob, index: int) -> str:
    """The job's name in the cluster: its own, or ``j<index>`` (one owner for replay and export)."""
    return job.name or f"j{index}"


def _issues_of(exc: ValidationError, line: int) -> list[Issue]:
    out = []
    for error in exc.errors(include_url=False):
        field = ".".join(str(part) for part in error["loc"]) or "(line)"
        message, fix = error["msg"].removeprefix("Value error, "), "correct the value (see docs/whatif.md)"
        if error["type"] == "extra_forbidden":
            message, fix = "unknown key", f"remove it or use one of: {', '.join(KEYS)}"
        elif error["type"] == "missing":
            message, fix = "missing", "add the key"
        out.append(Issue(f"line {line}: {field}", message, fix))
    return out


def _parse(text: str) -> tuple[list[tuple[int, TraceJob]], list[Issue]]:
    jobs: list[tuple[int, TraceJob]] = []
    issues: list[Issue] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        if number > MAX_LINES:
            issues.append(Issue(f"line {number}", f"a trace has at most {MAX_LINES} lines", "split the trace"))
            break
        try:
            data = json.loads(raw)
        except ValueError as exc:
            if not jobs and not issues:  # the first line already: not a trace at all (a YAML file, a binary)
                return [], [
                    Issue(
                        "(file)",
                        f"is not a JSON Lines trace (line {number}: {exc})",
                        "pass a trace: one JSON object per line, see docs/whatif.md",
                    )
                ]
            issues.append(Issue(f"line {number}", f"not JSON: {exc}", "write one JSON object per line"))
            continue
        if isinstance(data, dict) and HEADER_KEY in data:
            if data.get(HEADER_KEY) != VERSION or len(data) != 1:
                issues.append(
                    Issue(
                        f"line {number}: {HEADER_KEY}",
                        f"unknown trace version {data.get(HEADER_KEY)!r}",
                        f'write {{"{HEADER_KEY}": "{VERSION}"}}',
                    )
                )
            continue
        if not isinstance(data, dict):
            issues.append(Issue(f"line {number}", "not a JSON object", "write one JSON object per line"))
            continue
        try:
            job = TraceJob.model_validate(data)
        except ValidationError as exc:
            issues.extend(_issues_of(exc, number))
            continue
        issues.extend(_elastic_issues(job, number))
        jobs.append((number, job))
    return jobs, issues


def _elastic_issues(job: TraceJob, number: int) -> list[Issue]:
    """``minPods`` is replayed as a VolcanoJob's ``minAvailable`` below its replicas, and only so."""
    if job.min_pods is None:
        return []
    if job.kind != "VolcanoJob":
        return [
            Issue(
                f"line {number}: minPods",
                f"a {job.kind} is not replayed elastic: Kueue's elastic jobs "
                "(ElasticJobsViaWorkloadSlices) grow only when the job's parallelism changes, which a trace "
                "does not record",
                "remove minPods, or use kind VolcanoJob in a Volcano namespace",
            )
        ]
    if job.min_pods > job.pods:
        return [
            Issue(
                f"line {number}: minPods",
                f"{job.min_pods} is more than the job's {job.pods} pods",
                f"use at most {job.pods}",
            )
        ]
    return []


def _against_model(jobs: list[tuple[int, TraceJob]], fleet: Fleet) -> list[Issue]:
    teams = {ns: team for team in fleet.teams for ns in team.namespaces}
    priorities = {p.name for p in fleet.priority_classes}
    issues: list[Issue] = []
    names: dict[tuple[str, str], int] = {}
    for number, job in jobs:
        team = teams.get(job.namespace)
        if team is None:
            issues.append(
                Issue(
                    f"line {number}: namespace",
                    f"{job.namespace!r} is no team namespace of model {fleet.name!r}",
                    f"use one of: {', '.join(sorted(teams)) or '(no teams)'}",
                )
            )
            continue
        engine = ownership.namespace_engine(fleet, team, job.namespace)
        if engine == ownership.VOLCANO and job.kind != "VolcanoJob":
            issues.append(
                Issue(
                    f"line {number}: kind",
                    f"{job.namespace!r} is a Volcano namespace; a {job.kind} there bypasses the team's quota",
                    "use kind VolcanoJob or a Kueue namespace",
                )
            )
        if engine == ownership.KUEUE and job.kind == "VolcanoJob":
            issues.append(
                Issue(
                    f"line {number}: kind",
                    f"{job.namespace!r} is a Kueue namespace; Volcano runs only in the team's volcanoNamespaces",
                    f"use one of {', '.join(KUEUE_KINDS)}",
                )
            )
        if engine == ownership.COSCHEDULING:
            issues.append(
                Issue(
                    f"line {number}: namespace",
                    "coscheduling namespaces are not replayed yet",
                    "use a Kueue or Volcano namespace",
                )
            )
        if job.priority_class is not None and job.priority_class not in priorities:
            issues.append(
                Issue(
                    f"line {number}: priorityClass",
                    f"{job.priority_class!r} is not in the model",
                    f"use one of: {', '.join(sorted(priorities)) or '(none declared)'}",
                )
            )
        if job.pool is not None and job.pool not in team.quota:
            issues.append(
                Issue(
                    f"line {number}: pool",
                    f"team {team.name!r} has no quota on pool {job.pool!r}",
                    f"use one of: {', '.join(team.quota) or '(none)'}",
                )
            )
        name = job_name(job, number)
        key = (job.namespace, name)
        if key in names:
            issues.append(
                Issue(
                    f"line {number}: name",
                    f"{name!r} is also line {names[key]}'s job in {job.namespace!r}",
                    "give every job of a namespace its own name",
                )
            )
        names[key] = number
    return issues


def parse_trace(text: str, fleet: Fleet | None, source: str = "trace") -> Trace:
    """The trace in ``text``, checked against ``fleet`` when given; :class:`TraceError` with every problem."""
    numbered, issues = _parse(text)
    if fleet is not None:
        issues += _against_model(numbered, fleet)
    return _trace(numbered, issues, source)


def _trace(numbered: list[tuple[int, TraceJob]], issues: list[Issue], source: str) -> Trace:
    """The jobs in submit order, each named; :class:`TraceError` with ``issues`` when any."""
    if not numbered and not issues:
        issues.append(Issue("(file)", "the trace has no jobs", "write one JSON object per job"))
    if issues:
        raise TraceError(source, issues)
    ordered = sorted(enumerate(numbered), key=lambda item: (item[1][1].submit_seconds, item[0]))
    return Trace(
        jobs=tuple(
            job if job.name else job.model_copy(update={"name": job_name(job, number)}) for _, (number, job) in ordered
        )
    )


def load_trace(path: Path, fleets: list[Fleet]) -> Trace:
    """Read a trace file once (at most :data:`MAX_BYTES`), parse it once and check it against each of ``fleets``."""
    try:
        text = read_bounded_text(path, MAX_BYTES, "trace")
    except TooLarge as exc:
        raise TraceError(str(path), [Issue("(file)", str(exc), "split it")]) from None
    except (OSError, ValueError) as exc:
        raise TraceError(
            str(path), [Issue("(file)", f"cannot be read: {exc}", "give a readable UTF-8 JSON Lines file")]
        ) from None
    numbered, issues = _parse(text)
    for fleet in fleets:
        issues += [i for i in _against_model(numbered, fleet) if i not in issues]
    return _trace(numbered, issues, str(path))


def dump_trace(jobs: Iterable[TraceJob]) -> str:
    """The trace as JSON Lines, header first; keys camelCase, unset optional keys left out."""
    lines = [json.dumps({HEADER_KEY: VERSION})]
    lines += [json.dumps(job.model_dump(by_alias=True, exclude_none=True)) for job in jobs]
    return "\n".join(lines) + "\n"
