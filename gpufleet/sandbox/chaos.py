"""A fault run: gangs run while the engines are killed and restarted one at a time, invariants watched throughout.

Called by the e2e tier (``tests/e2e/test_faults_e2e.py``, a bounded run) and
``bench/faults_bench.py`` (more faults; the same schedule with no fault is its floor). For each component, in an order and at moments
drawn from ``seed``: submit one more job, wait a random gap, SIGKILL the component
(``gpufleet.sandbox.faults``), leave it down a random while, restart it and time its
recovery. While the gang-admission controller is down, it checks from the API server that
only team namespaces are blocked (fail closed) and that they are open again once it is
back. A watcher thread reads the API server every second and checks the invariants of
``gpufleet.sandbox.invariants``; while the API server (or etcd) is down it cannot read,
and the seconds it could not are reported, not guessed. At the end it waits (``settle``) for
every job to finish and counts from one last snapshot: a job that has not finished by
then must carry its reason (a suspended Job's condition, a failed one's), else it is lost.
Meanwhile a rank whose finish KWOK dropped while the API server was restarting is reported
again, as a kubelet would (``gpufleet.sandbox.kwokretry``), and counted (``kwok_retries``).
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from gpufleet.sandbox import faults, kwokretry
from gpufleet.sandbox import invariants as inv
from gpufleet.sandbox.kube import Kube
from gpufleet.sandbox.state import State

VC_API = "batch.volcano.sh/v1alpha1"
Obj = dict[str, Any]


@dataclass
class Fault:
    component: str
    at: float  # seconds into the run when it was killed
    down: float  # seconds it stayed killed
    recovered: float  # seconds from its restart to ready
    checks: dict[str, bool] = field(default_factory=dict)  # the controller's: what was blocked while it was down


@dataclass
class Report:
    seed: int
    faults: list[Fault]
    violations: list[inv.Violation]
    submitted: int
    finished: int
    with_reason: int
    unobserved_seconds: float  # watcher passes that could not read the API server
    seconds: float
    kwok_retries: int = 0  # ranks whose dropped pod-complete stage was played again (kwokretry)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def ranks(job: Obj) -> int:
    spec = job["spec"]
    if job["apiVersion"] == VC_API:
        return sum(int(t.get("replicas", 1)) for t in spec.get("tasks", []))
    return int(spec.get("parallelism", 1))


def key(job: Obj) -> tuple[str, str]:
    return job["metadata"]["namespace"], job["metadata"]["name"]


class Watcher(threading.Thread):
    """Reads the API server every ``interval`` seconds and keeps every invariant violation it sees (once each)."""

    def __init__(self, kube: Kube, jobs: list[Obj], budget: float, interval: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.kube, self.jobs, self.interval = kube, jobs, interval
        self.gangs = inv.PartialGangs(budget)
        self.violations: dict[tuple[str, str], inv.Violation] = {}
        self.unobserved = 0.0
        self.stop = threading.Event()
        self.began = time.monotonic()

    def check_once(self) -> None:
        cqs = self.kube.list("kueue.x-k8s.io/v1beta2", "ClusterQueue")
        pods = self.kube.list("v1", "Pod")
        expected = {key(j): ranks(j) for j in list(self.jobs)}
        minimums = {
            key(j): int(j["spec"].get("minAvailable") or ranks(j)) for j in list(self.jobs) if j["apiVersion"] == VC_API
        }
        found = (
            inv.quota(cqs)
            + inv.duplicates(pods, expected)
            + self.gangs.check(time.monotonic() - self.began, minimums, pods)
        )
        for v in found:
            self.violations.setdefault((v.invariant, v.subject), v)

    def run(self) -> None:
        while not self.stop.wait(self.interval):
            try:
                self.check_once()
            except Exception:  # noqa: BLE001 - the API server or etcd is down: nothing can be read now
                self.unobserved += self.interval


def _dry_run(kube: Kube, job: Obj) -> bool:
    """Whether the API server would create ``job`` now (a server-side dry run: webhooks called, nothing stored)."""
    try:
        kube.resource(job["apiVersion"], job["kind"]).create(
            body=job, namespace=job["metadata"]["namespace"], dry_run="All"
        )
        return True
    except Exception:  # noqa: BLE001 - refused (the webhook could not be called) or the API is not ready
        return False


def _controller_checks(kube: Kube, team_job: Obj, free_job: Obj, back: bool) -> dict[str, bool]:
    prefix = "afterRestart" if back else "whileDown"
    return {
        f"{prefix}TeamNamespaceOpen": _dry_run(kube, team_job),
        f"{prefix}OtherNamespaceOpen": _dry_run(kube, free_job),
    }


def _snapshot(kube: Kube, jobs: list[Obj]) -> list[Obj]:
    """The jobs as the API server has them now (a deleted one as submitted: neither finished nor with a reason)."""
    return [kube.get(j["apiVersion"], j["kind"], j["metadata"]["name"], j["metadata"]["namespace"]) or j for j in jobs]


def _retry_dropped(kube: Kube, namespaces: set[str]) -> int:
    """Touch the pods whose pod-complete stage KWOK dropped (:mod:`gpufleet.sandbox.kwokretry`); how many."""
    touched = 0
    for namespace in sorted(namespaces):
        now = time.time()
        for pod in kwokretry.overdue(kube.list("v1", "Pod", namespace), now):
            kube.core().patch_namespaced_pod(pod["metadata"]["name"], namespace, kwokretry.touch(now))
            touched += 1
    return touched


def _settle(kube: Kube, jobs: list[Obj], seconds: float) -> tuple[list[Obj], int]:
    """Wait up to ``seconds`` for every job to finish: the last snapshot, from which everything is counted, and
    how many dropped ranks were played again meanwhile."""
    deadline = time.monotonic() + seconds
    retried = 0
    while True:
        final = _snapshot(kube, jobs)
        if all(inv.finished(j) for j in final) or time.monotonic() >= deadline:
            return final, retried
        retried += _retry_dropped(kube, {j["metadata"]["namespace"] for j in jobs})
        time.sleep(2)


def run(
    state: State,
    kube: Kube,
    jobs: list[Obj],
    components: list[str],
    seed: int,
    budget: float,
    probes: tuple[Obj, Obj] | None = None,
    gap: tuple[float, float] = (1.0, 4.0),
    down: tuple[float, float] = (1.0, 3.0),
    settle: float = 240.0,
    inject: bool = True,
) -> Report:
    """Submit ``jobs`` (one before each fault, the rest first) and kill every component once; see the module docstring.

    ``probes``: a job for a team namespace and one for another namespace, dry-run while the
    gang-admission controller is down and once it is back. ``inject=False`` keeps the same
    seeded schedule (submissions, gaps, pauses) and kills nothing: a benchmark's floor.
    """
    rng = random.Random(seed)
    order = list(components)
    rng.shuffle(order)
    began = time.monotonic()
    head, tail = jobs[: max(0, len(jobs) - len(order))], jobs[max(0, len(jobs) - len(order)) :]
    submitted: list[Obj] = []
    watcher = Watcher(kube, submitted, budget)
    for job in head:
        kube.create(job)
        submitted.append(job)
    watcher.start()
    done: list[Fault] = []
    for index, component in enumerate(order):
        if index < len(tail):
            kube.create(tail[index])
            submitted.append(tail[index])
        time.sleep(rng.uniform(*gap))
        at = time.monotonic() - began
        if inject:
            faults.kill(state, component)
        held = rng.uniform(*down)
        time.sleep(held)
        watched = probes if inject and component == "gang-admission-controller" else None
        checks = _controller_checks(kube, *watched, back=False) if watched else {}
        recovered = faults.restart(state, component) if inject else 0.0
        if watched:
            checks.update(_controller_checks(kube, *watched, back=True))
        done.append(Fault(component, round(at, 1), round(held, 1), round(recovered, 2), checks))
    final, retried = _settle(kube, submitted, settle)
    watcher.stop.set()
    watcher.join()
    finished = sum(inv.finished(j) for j in final)
    said = sum(not inv.finished(j) and bool(inv.reason(j)) for j in final)
    violations = list(watcher.violations.values()) + inv.unfinished(final)
    return Report(
        seed,
        done,
        violations,
        len(submitted),
        finished,
        said,
        watcher.unobserved,
        round(time.monotonic() - began, 1),
        retried,
    )
