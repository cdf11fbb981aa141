"""Volcano Job lifecycle policies and defaults, read the way Volcano's controller and webhook read them.

Used by the restart rules (GANG201, GANG202), the gang-size rules (:func:`default_min_available`),
the gang contract's Volcano reader and the mutator. A policy maps an
``event`` (or a list of ``events``) or an ``exitCode`` to an ``action``; task
policies override job policies for the same event (volcano.md §3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection, Iterable, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.util.quickinit import quick_init
from gpufleet.workloads.types import SPEC, as_int, as_list, as_map, is_map

ANY_EVENT = "*"
FAILURE_EVENTS = ("PodFailed", "PodEvicted")
PARTIAL_RESTART_ACTIONS = frozenset({"RestartPod", "RestartTask", "RestartPartition"})


@quick_init
@dataclass(frozen=True)
class Policy:
    """One entry of ``spec.policies`` or ``spec.tasks[i].policies``."""

    path: FieldPath
    events: tuple[str, ...]
    exit_code: int | None
    action: str
    task: int | None  # index of the task for task-level policies, None at job level

    def covers(self, event: str) -> bool:
        return event in self.events or ANY_EVENT in self.events


def default_min_available(tasks: Any) -> int:
    """What Volcano's webhook writes for an unset or 0 ``minAvailable``: Σ task minAvailable (default: replicas).

    ``volcano v1.14.1 pkg/webhooks/admission/jobs/mutate/mutate_job.go`` ``patchDefaultMinAvailable``.
    """
    total = 0
    for task in as_list(tasks):
        task = as_map(task)
        task_min = as_int(task.get("minAvailable"))
        total += task_min if task_min is not None else max(as_int(task.get("replicas"), 0) or 0, 0)
    return total


def _events(raw: Mapping[str, Any]) -> tuple[str, ...]:
    """The events one raw policy maps: its ``event`` and its ``events``."""
    return tuple(str(e) for e in [raw.get("event"), *as_list(raw.get("events"))] if e)


_POLICIES, _TASKS = SPEC.child("policies"), SPEC.child("tasks")


def _policy(path: FieldPath, raw: Mapping[str, Any], task: int | None) -> Policy:
    code = raw.get("exitCode")
    return Policy(path, _events(raw), code if isinstance(code, int) else None, _action(raw), task)


def _action(raw: Mapping[str, Any]) -> str:
    return str(raw.get("action") or "")


def job_policies(obj: Mapping[str, Any]) -> list[Policy]:
    spec = as_map(obj.get("spec"))
    return [_policy(_POLICIES.index(i), p, None) for i, p in enumerate(as_list(spec.get("policies"))) if is_map(p)]


def task_policies(obj: Mapping[str, Any], index: int) -> list[Policy]:
    tasks = as_list(as_map(obj.get("spec")).get("tasks"))
    task = as_map(tasks[index]) if index < len(tasks) else {}
    return [
        _policy(_TASKS.index(index).child("policies").index(i), p, index)
        for i, p in enumerate(as_list(task.get("policies")))
        if is_map(p)
    ]


def all_policies(obj: Mapping[str, Any], actions: Collection[str] | None = None) -> Iterator[Policy]:
    """Job-level policies, then each task's, in order; only those whose action is in ``actions`` when given."""
    spec = as_map(obj.get("spec"))
    for i, raw in enumerate(as_list(spec.get("policies"))):
        if is_map(raw) and (actions is None or _action(raw) in actions):
            yield _policy(_POLICIES.index(i), raw, None)
    for index, task in enumerate(as_list(spec.get("tasks"))):
        for i, raw in enumerate(as_list(as_map(task).get("policies"))):
            if is_map(raw) and (actions is None or _action(raw) in actions):
                yield _policy(_TASKS.index(index).child("policies").index(i), raw, index)


def effective_policy(obj: Mapping[str, Any], task: int, event: str) -> Policy | None:
    """The policy Volcano applies to ``event`` for pods of task ``task``: the task's own, else the job's."""
    for policy in task_policies(obj, task):
        if policy.covers(event):
            return policy
    return next((p for p in job_policies(obj) if p.covers(event)), None)


def _covered(raw_policies: Any) -> set[str]:
    """Every event some policy of a ``policies`` list maps (``*`` included as written)."""
    events: set[str] = set()
    for raw in as_list(raw_policies):
        if is_map(raw):  # _events(raw), without the tuple
            event = raw.get("event")
            if event:
                events.add(str(event))
            for event in as_list(raw.get("events")):
                if event:
                    events.add(str(event))
    return events


def uncovered_events(obj: Mapping[str, Any], events: Iterable[str] = FAILURE_EVENTS) -> list[str]:
    """The ``events`` for which some task has no :func:`effective_policy` (neither its own nor the job's)."""
    events = tuple(events)
    spec = as_map(obj.get("spec"))
    job = _covered(spec.get("policies"))
    if ANY_EVENT in job or all(event in job for event in events):
        return []  # the job's own policies cover every event (the usual job): no task needs reading
    tasks = [_covered(as_map(task).get("policies")) for task in as_list(spec.get("tasks"))]
    return [
        event
        for event in events
        if event not in job and ANY_EVENT not in job and any(event not in t and ANY_EVENT not in t for t in tasks)
    ]
