"""What must hold in a sandbox while its engines are killed and restarted (issue 30's fault tier).

Called by ``gpufleet.sandbox.faults`` on every pass of its watch loop, with objects it just
listed from the API server; pure functions of those lists (and, for partial gangs, of
when each gang was first seen partial), so tests drive them with hand-built objects.

- **quota**: no ClusterQueue uses or reserves more of a resource in a flavor than its
  ``nominalQuota`` plus ``borrowingLimit`` (a flavor without ``borrowingLimit`` may borrow
  whatever its cohort lends: the cohort bounds it, not checked here). Kueue v1beta2
  ``status.flavorsUsage`` and ``status.flavorsReservation``.
- **duplicates**: no job has more live pods (not finished, not being deleted) than ranks:
  a rank started twice, or a job admitted twice.
- **partial gangs**: no gang under a gang scheduler (a Volcano Job) has some but fewer than
  ``minAvailable`` of its pods bound for longer than the startup budget.
- **finished**: at the end, every submitted job has finished, or carries its reason (a
  failed Job's condition, a Workload's pending message, a PodGroup's condition).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Iterable

from gpufleet.kubetypes.quantity import parse
from gpufleet.kubetypes.vocab import JOB_NAME_LABEL, VOLCANO_JOB_LABEL

Obj = dict[str, Any]


@dataclass(frozen=True)
class Violation:
    invariant: str  # quota, duplicates, partialGang, unfinished
    subject: str  # the object, as namespace/name or name
    detail: str


def _amount(value: Any) -> Decimal:
    return parse(value) if value is not None else Decimal(0)


def _limits(cq: Obj) -> dict[tuple[str, str], Decimal]:
    """(flavor, resource) -> nominal + borrowing limit, for the flavors that have a borrowing limit."""
    out: dict[tuple[str, str], Decimal] = {}
    for group in cq.get("spec", {}).get("resourceGroups", []):
        for flavor in group.get("flavors", []):
            for res in flavor.get("resources", []):
                if "borrowingLimit" in res:
                    out[(flavor["name"], res["name"])] = _amount(res.get("nominalQuota")) + _amount(
                        res["borrowingLimit"]
                    )
    return out


def quota(cluster_queues: Iterable[Obj]) -> list[Violation]:
    found = []
    for cq in cluster_queues:
        limits = _limits(cq)
        status = cq.get("status", {})
        for field in ("flavorsUsage", "flavorsReservation"):
            for flavor in status.get(field, []):
                for res in flavor.get("resources", []):
                    limit = limits.get((flavor["name"], res["name"]))
                    if limit is not None and _amount(res.get("total")) > limit:
                        found.append(
                            Violation(
                                "quota",
                                cq["metadata"]["name"],
                                f"{field} of {res['name']} in {flavor['name']} is {res.get('total')}, "
                                f"above nominal + borrowingLimit {limit}",
                            )
                        )
    return found


def live(pod: Obj) -> bool:
    return pod.get("status", {}).get("phase") not in ("Succeeded", "Failed") and not pod["metadata"].get(
        "deletionTimestamp"
    )


def job_of(pod: Obj) -> tuple[str, str] | None:
    """(namespace, job name) of a batch Job's or a Volcano Job's pod; None for another pod."""
    labels = pod["metadata"].get("labels") or {}
    name = labels.get(JOB_NAME_LABEL) or labels.get(VOLCANO_JOB_LABEL)
    return (pod["metadata"]["namespace"], name) if name else None


def duplicates(pods: Iterable[Obj], ranks: dict[tuple[str, str], int]) -> list[Violation]:
    counts: dict[tuple[str, str], int] = {}
    for pod in pods:
        key = job_of(pod)
        if key in ranks and live(pod):
            counts[key] = counts.get(key, 0) + 1
    return [
        Violation("duplicates", f"{ns}/{name}", f"{n} live pods for {ranks[(ns, name)]} ranks")
        for (ns, name), n in sorted(counts.items())
        if n > ranks[(ns, name)]
    ]


class PartialGangs:
    """Volcano gangs bound in part, and since when: a violation once one stays so past ``budget`` seconds."""

    def __init__(self, budget: float) -> None:
        self.budget = budget
        self.since: dict[tuple[str, str], float] = {}

    def check(self, now: float, minimums: dict[tuple[str, str], int], pods: Iterable[Obj]) -> list[Violation]:
        bound: dict[tuple[str, str], int] = {}
        for pod in pods:
            key = job_of(pod)
            if key in minimums and live(pod) and pod.get("spec", {}).get("nodeName"):
                bound[key] = bound.get(key, 0) + 1
        found = []
        for key, minimum in minimums.items():
            if 0 < bound.get(key, 0) < minimum:
                first = self.since.setdefault(key, now)
                if now - first > self.budget:
                    found.append(
                        Violation(
                            "partialGang",
                            "/".join(key),
                            f"{bound[key]} of {minimum} pods bound for {now - first:.0f}s (budget {self.budget:.0f}s)",
                        )
                    )
            else:
                self.since.pop(key, None)
        return found


def finished(job: Obj) -> bool:
    """A batch Job with a Complete condition, or a Volcano Job in phase Completed."""
    if job.get("apiVersion", "").startswith("batch.volcano.sh"):
        return job.get("status", {}).get("state", {}).get("phase") == "Completed"
    return any(
        c.get("type") == "Complete" and c.get("status") == "True" for c in job.get("status", {}).get("conditions", [])
    )


def reason(job: Obj) -> str:
    """Why a job has not finished, as its own status says; empty when it says nothing."""
    status = job.get("status", {})
    phase = status.get("state", {})
    if phase.get("phase") and (phase.get("reason") or phase.get("message")):
        return f"{phase['phase']}: {phase.get('reason', '')} {phase.get('message', '')}".strip()
    for cond in status.get("conditions", []):
        if cond.get("status") == "True" and cond.get("type") in ("Failed", "Suspended", "FailureTarget"):
            return f"{cond['type']}: {cond.get('reason', '')} {cond.get('message', '')}".strip()
    return ""


def unfinished(jobs: Iterable[Obj]) -> list[Violation]:
    """Jobs neither finished nor carrying a reason: lost."""
    return [
        Violation("unfinished", f"{j['metadata']['namespace']}/{j['metadata']['name']}", "no reason given")
        for j in jobs
        if not finished(j) and not reason(j)
    ]
