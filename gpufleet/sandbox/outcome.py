"""What the real engines did with a trial's gang, classified: observed objects in, an outcome out.

Pure (no API server): :mod:`gpufleet.sandbox.trial` polls the sandbox into an
:class:`Observed` snapshot and calls :func:`classify` while the gang has not failed,
and :func:`after_failure` once ``--fail-rank`` has failed one of its ranks. The unit
tier calls both on hand-built snapshots.

Outcomes (the ``outcome`` of ``gpufleet try --format json``; the names are
:mod:`gpufleet.workloads.outcomes`'s, which the rules' predictions share):

- ``ranWhole``: as many Running pods as the manifests have ranks.
- ``partlyBound``: some pods hold a node, not all ranks run.
- ``gated``: no pod holds a node; pods carry ``schedulingGates``, or a job is suspended
  and no Kueue Workload stands for it (nothing will ever unsuspend it).
- ``neverAdmitted``: no pod holds a node, for the engines' reasons (:func:`reasons`).
- after a failed rank: ``restartedWhole`` (every rank's pod is new and Running),
  ``rankReplacedAlone`` (the failed rank got a new pod, the others kept theirs),
  ``rankNotReplaced`` (the others run on, nothing replaced the failed rank),
  ``stoppedWhole`` (no pod of the gang is left alive) or ``partlyBound`` (anything
  between, at the deadline).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Iterable, Mapping

from gpufleet.kubetypes.vocab import NVIDIA_GPU
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.resources import pod_requests

Obj = Mapping[str, Any]
FINISHED = ("Succeeded", "Failed")


@dataclass(frozen=True)
class Observed:
    """The trial's objects as the API server held them at one moment (only those of the trial)."""

    pods: tuple[Obj, ...] = ()
    workloads: tuple[Obj, ...] = ()
    """Kueue Workloads of the submitted objects."""
    pod_groups: tuple[Obj, ...] = ()
    """Volcano and scheduler-plugins PodGroups of (or among) the submitted objects."""
    owners: tuple[Obj, ...] = ()
    """The submitted objects as they are now, and the batch Jobs they own (JobSets)."""
    events: tuple[Obj, ...] = ()
    """Warning events about any of the above."""


@dataclass(frozen=True)
class Verdict:
    outcome: str
    running: int
    bound: int
    pending: int
    gpus_held: str
    reasons: tuple[str, ...] = field(default=())


def _meta(obj: Obj, key: str) -> Any:
    return (obj.get("metadata") or {}).get(key)


def uid(obj: Obj) -> str:
    return _meta(obj, "uid") or ""


def alive(pod: Obj) -> bool:
    return (pod.get("status") or {}).get("phase") not in FINISHED and not _meta(pod, "deletionTimestamp")


def running(pod: Obj) -> bool:
    return alive(pod) and (pod.get("status") or {}).get("phase") == "Running"


def bound(pod: Obj) -> bool:
    return alive(pod) and bool((pod.get("spec") or {}).get("nodeName"))


def gated(pod: Obj) -> bool:
    return alive(pod) and bool((pod.get("spec") or {}).get("schedulingGates"))


def gpus_held(pods: Iterable[Obj], resources: Iterable[str]) -> Decimal:
    """The GPUs that bound, unfinished pods request (of any of ``resources``)."""
    names = tuple(resources)
    return sum(
        (pod_requests(p.get("spec") or {}).get(r, Decimal(0)) for p in pods if bound(p) for r in names), Decimal(0)
    )


def _suspended(obj: Obj) -> bool:
    return (obj.get("spec") or {}).get("suspend") is True


def _dedupe(lines: Iterable[str]) -> tuple[str, ...]:
    counts: dict[str, int] = {}
    for line in lines:
        counts[line] = counts.get(line, 0) + 1
    return tuple(line if n == 1 else f"{line} (x{n})" for line, n in counts.items())


def reasons(seen: Observed) -> tuple[str, ...]:
    """The engines' own words for why the gang does not run: Kueue conditions, PodGroup conditions,
    the schedulers' ``PodScheduled`` conditions, scheduling gates, suspended jobs, Warning events."""
    out: list[str] = []
    for wl in seen.workloads:
        for c in (wl.get("status") or {}).get("conditions") or []:
            explains = (c.get("type") in ("QuotaReserved", "Admitted") and c.get("status") == "False") or (
                c.get("type") in ("Evicted", "Preempted", "Deactivated") and c.get("status") == "True"
            )
            if explains:
                out.append(
                    f"Kueue Workload {_meta(wl, 'name')}: {c['type']}={c.get('status')} "
                    f"{c.get('reason', '')}: {c.get('message', '')}".rstrip(": ")
                )
    for group in seen.pod_groups:  # Volcano appends a condition per scheduling verdict: the last one is now
        status = group.get("status") or {}
        last = [c for c in status.get("conditions") or [] if c.get("type") == "Unschedulable"][-1:]
        out += [
            f"PodGroup {_meta(group, 'name')} ({status.get('phase', '?')}): {c.get('reason', '')}: {c.get('message', '')}"
            for c in last
            if c.get("status", "True") == "True"
        ]
    for pod in seen.pods:
        if gated(pod):
            out.append("pod gated by " + ", ".join(g.get("name", "?") for g in pod["spec"]["schedulingGates"]))
        for c in (pod.get("status") or {}).get("conditions") or []:
            if c.get("type") == "PodScheduled" and c.get("status") == "False" and alive(pod):
                out.append(f"pod unscheduled: {c.get('reason', '')}: {c.get('message', '')}")
    out += [f"{o.get('kind')} {_meta(o, 'name')} is suspended" for o in seen.owners if _suspended(o)]
    out += [
        f"{(e.get('involvedObject') or {}).get('kind', '?')} {(e.get('involvedObject') or {}).get('name', '?')}: "
        f"{e.get('reason', '')}: {e.get('message', '')}"
        for e in seen.events
    ]
    return _dedupe(out)


def _verdict(outcome: str, seen: Observed, resources: Iterable[str], why: bool = True) -> Verdict:
    pods = seen.pods
    return Verdict(
        outcome,
        sum(map(running, pods)),
        sum(map(bound, pods)),
        sum(alive(p) and not bound(p) for p in pods),
        str(gpus_held(pods, resources)),
        reasons(seen) if why else (),
    )


def is_whole(seen: Observed, expected: int) -> bool:
    return expected > 0 and sum(map(running, seen.pods)) >= expected


def classify(seen: Observed, expected: int, resources: Iterable[str] = (NVIDIA_GPU,)) -> Verdict:
    """The outcome of a gang of ``expected`` ranks that has not been failed on purpose."""
    if is_whole(seen, expected):
        return _verdict(O.RAN_WHOLE, seen, resources, why=False)
    if any(map(bound, seen.pods)):
        return _verdict(O.PARTLY_BOUND, seen, resources)
    gates = any(map(gated, seen.pods))
    if gates or (any(map(_suspended, seen.owners)) and not seen.workloads):
        return _verdict(O.GATED, seen, resources)
    return _verdict(O.NEVER_ADMITTED, seen, resources)


def after_failure(
    before: frozenset[str],
    failed: str,
    seen: Observed,
    expected: int,
    final: bool,
    resources: Iterable[str] = (NVIDIA_GPU,),
) -> Verdict | None:
    """The outcome once the rank whose pod had ``failed`` as its UID was failed (``before``: the UIDs of every
    rank's pod when all ran). None while it may still change: ``restartedWhole`` is decided when reached,
    the others only when ``final`` (the deadline, or nothing changed for the settle time)."""
    now = {uid(p) for p in seen.pods if running(p)}
    others = before - {failed}
    kept, fresh = others & now, now - before
    if not kept and len(fresh) >= expected:
        return _verdict(O.RESTARTED_WHOLE, seen, resources, why=False)
    if not final:
        return None
    if kept == others and fresh and len(kept) + len(fresh) >= expected:
        return _verdict(O.RANK_REPLACED_ALONE, seen, resources, why=False)
    if others and kept == others and not fresh:
        return _verdict(O.RANK_NOT_REPLACED, seen, resources)
    if not any(map(alive, seen.pods)):
        return _verdict(O.STOPPED_WHOLE, seen, resources)
    return _verdict(O.PARTLY_BOUND, seen, resources)


def fingerprint(seen: Observed) -> tuple:
    """What would change if an engine acted: pods' phase, node, gates; Workloads' and PodGroups' conditions;
    the jobs' suspension. Equal fingerprints for the settle time mean the engines have stopped acting."""

    def conds(obj: Obj) -> tuple:
        status = obj.get("status") or {}
        return (
            status.get("phase"),
            tuple(
                sorted(
                    (c.get("type", ""), c.get("status", ""), c.get("message", ""))
                    for c in status.get("conditions") or []
                )
            ),
        )

    pods = sorted(
        (
            uid(p),
            (p.get("status") or {}).get("phase"),
            (p.get("spec") or {}).get("nodeName"),
            gated(p),
            bool(_meta(p, "deletionTimestamp")),
        )
        for p in seen.pods
    )
    return (
        tuple(pods),
        tuple(sorted((uid(o), conds(o)) for o in (*seen.workloads, *seen.pod_groups))),
        tuple(sorted((uid(o), _suspended(o)) for o in seen.owners)),
    )


def rank_order(pods: Iterable[Obj]) -> list[Obj]:
    """Pods in rank order: by name with numbers compared as numbers (``w-2`` before ``w-10``; an Indexed Job's
    ``<job>-<index>-<suffix>`` by index; a Volcano Job's ``<job>-<task>-<index>`` by task, then index)."""

    def key(pod: Obj) -> list:
        return [
            (0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", _meta(pod, "name") or "")
            if part
        ]

    return sorted(pods, key=key)


_WHO = (
    r'admission webhook "([^"]+)"',
    r'failed calling webhook "([^"]+)"',
    r"ValidatingAdmissionPolicy '([^']+)'",
    r'ValidatingAdmissionPolicy "([^"]+)"',
)


def refused_by(message: str) -> str:
    """Who refused, from the API server's message: the webhook or admission policy it names, else the API server."""
    for pattern in _WHO:
        found = re.search(pattern, message)
        if found:
            return found.group(1)
    return "kube-apiserver"
