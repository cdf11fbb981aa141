"""Volcano Job lifecycle policies, read the way Volcano's controller reads them.

Used by the restart rules (GANG201, GANG202) and the mutator. A policy maps an
``event`` (or a list of ``events``) or an ``exitCode`` to an ``action``; task
policies override job policies for the same event (volcano.md §3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from gpufleet.workloads.types import as_list, as_map, is_map

ANY_EVENT = "*"
FAILURE_EVENTS = ("PodFailed", "PodEvicted")
JOB_LEVEL_ACTIONS = frozenset({"RestartJob", "AbortJob", "TerminateJob"})
PARTIAL_RESTART_ACTIONS = frozenset({"RestartPod", "RestartTask", "RestartPartition"})


@dataclass(frozen=True)
class Policy:
    """One entry of ``spec.policies`` or ``spec.tasks[i].policies``."""

    path: str
    events: tuple[str, ...]
    exit_code: int | None
    action: str
    task: int | None  # index of the task for task-level policies, None at job level

    def covers(self, event: str) -> bool:
        return event in self.events or ANY_EVENT in self.events


def _policy(path: str, raw: Mapping[str, Any], task: int | None) -> Policy:
    events = [raw.get("event")] + as_list(raw.get("events"))
    code = raw.get("exitCode")
    return Policy(path, tuple(str(e) for e in events if e), code if isinstance(code, int) else None,
                  str(raw.get("action") or ""), task)


def job_policies(obj: Mapping[str, Any]) -> list[Policy]:
    spec = as_map(obj.get("spec"))
    return [_policy(f"spec.policies[{i}]", p, None) for i, p in enumerate(as_list(spec.get("policies")))
            if is_map(p)]


def task_policies(obj: Mapping[str, Any], index: int) -> list[Policy]:
    tasks = as_list(as_map(obj.get("spec")).get("tasks"))
    task = as_map(tasks[index]) if index < len(tasks) else {}
    return [_policy(f"spec.tasks[{index}].policies[{i}]", p, index) for i, p in enumerate(as_list(task.get("policies")))
            if is_map(p)]


def all_policies(obj: Mapping[str, Any]) -> Iterator[Policy]:
    yield from job_policies(obj)
    for index in range(len(as_list(as_map(obj.get("spec")).get("tasks")))):
        yield from task_policies(obj, index)


def effective_policy(obj: Mapping[str, Any], task: int, event: str) -> Policy | None:
    """The policy Volcano applies to ``event`` for pods of task ``task``: the task's own, else the job's."""
    for policy in task_policies(obj, task):
        if policy.covers(event):
            return policy
    return next((p for p in job_policies(obj) if p.covers(event)), None)
