"""What a replay observed, in trace seconds: the input of :mod:`gpufleet.whatif.metrics`.

Filled by the sandbox replay (``gpufleet.sandbox.replay``) from the API server's watches:
each pod's bind, Running and end, each job's admissions, evictions (with Kueue's or
Volcano's reason), requeues and finish. Plain data, so the metrics are pure functions
that the unit tests drive with hand-made logs (the known answers of docs/whatif.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpufleet.whatif.trace import needed

REFUSED = "Refused"
"""The reason recorded for a create call the API server refused (``Refused: <its message>``)."""


@dataclass
class PodSpan:
    """One pod's life on a node."""

    name: str
    gpus: int
    pool: str | None = None
    bound: float | None = None
    running: float | None = None
    ended: float | None = None


@dataclass
class Eviction:
    at: float
    reason: str
    """``Preempted``, ``PodsReadyTimeout``, or the engine's other reason."""


@dataclass
class JobLog:
    """One trace job, as the engines treated it."""

    name: str
    namespace: str
    team: str
    pods: int
    gpus_per_pod: int
    submitted: float
    created: float | None = None
    """When the replay's create call returned (trace seconds): its lag behind ``submitted`` is the replay's own."""
    admitted: list[float] = field(default_factory=list)
    evictions: list[Eviction] = field(default_factory=list)
    requeues: list[float] = field(default_factory=list)
    finished: float | None = None
    spans: dict[str, PodSpan] = field(default_factory=dict)
    min_pods: int | None = None
    """An elastic job's pods that must run for it to run (the trace's ``minPods``); None = all of them."""
    start_seconds: float = 0.0
    """How long the trace says each pod takes to start once bound (``startSeconds``): the job's, not the sandbox's lag."""

    @property
    def needed(self) -> int:
        return needed(self.pods, self.min_pods)

    @property
    def refused(self) -> bool:
        """The API server refused the job's create call: it never queued."""
        return any(e.reason.startswith(REFUSED) for e in self.evictions)


@dataclass
class ReplayLog:
    """A whole replay of one model: its jobs, its GPU capacity per pool and how long it ran (trace seconds)."""

    model: str
    time_scale: float
    horizon: float
    capacity: dict[str, int]
    nominal: dict[tuple[str, str], float]
    """(team, pool) -> nominal GPUs, from the model."""
    jobs: list[JobLog] = field(default_factory=list)
    scaled: list[tuple[str, float, float]] = field(default_factory=list)
    """(duration, trace seconds, wall seconds) the sandbox ran with."""
    stopped: str = "horizon"
    """Why the replay ended at ``horizon`` (:mod:`gpufleet.whatif.stop`): ``finished``, ``stuck``, ``cap`` or
    ``horizon`` (the one asked for)."""
