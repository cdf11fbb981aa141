"""Gang-safe defaults for Volcano Jobs (``batch.volcano.sh/v1alpha1`` Job).

Called by :func:`gpufleet.mutate.core.mutate` for a Volcano Job in a team's
namespace. Each default is written only where the user left the field unset:

- ``spec.queue``: the team's Volcano queue. The CRD defaults ``queue`` to
  ``default`` before any webhook runs, so ``default`` counts as unset here.
- ``spec.schedulerName: volcano`` and the same on every pod template naming none
  (a template naming another scheduler bypasses the gang; that is GANG102's to deny).
- ``spec.minAvailable``: the sum of the replicas of the tasks without ``dependsOn`` (a dependent
  task's pods are created only once the others run: :mod:`gpufleet.workloads.stages`), unless the job is elastic
  (annotation ``gpufleet.dev/elastic``, read by :mod:`gpufleet.workloads.elastic` as the rules read it) or a replica count is not an integer.
- ``spec.policies``: ``PodFailed`` and ``PodEvicted`` -> ``RestartJob`` for each event
  no job-level policy covers (``*`` covers all) and not every task covers itself.
- ``restartPolicy: Never`` on every pod template that sets none.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.fleetctx.context import TeamContext
from gpufleet.kubetypes import vocab
from gpufleet.mutate.patch import PatchBuilder, is_map, is_unset
from gpufleet.workloads.elastic import is_elastic
from gpufleet.workloads.stages import starting_replicas
from gpufleet.workloads.types import SPEC

RESTART_EVENTS = ("PodEvicted", "PodFailed")
VOLCANO_DEFAULT_QUEUE = "default"  # the CRD's structural default for spec.queue


def mutate_volcano_job(obj: Mapping[str, Any], team: TeamContext, patch: PatchBuilder) -> None:
    spec = obj.get("spec")
    if not is_map(spec):
        return
    tasks = (
        [(i, t) for i, t in enumerate(spec.get("tasks") or ()) if is_map(t)]
        if isinstance(spec.get("tasks"), list)
        else []
    )
    if team.volcano_queue:
        patch.set_default(
            SPEC.child("queue"), team.volcano_queue, unset=lambda v: is_unset(v) or v == VOLCANO_DEFAULT_QUEUE
        )
    patch.set_default(SPEC.child("schedulerName"), vocab.VOLCANO_SCHEDULER)
    for i, task in tasks:
        if is_map(task.get("template")):
            pod = SPEC.child("tasks").index(i).child("template", "spec")
            patch.set_default(pod.child("schedulerName"), vocab.VOLCANO_SCHEDULER)
            patch.set_default(pod.child("restartPolicy"), "Never")
    total = starting_replicas([task for _, task in tasks])
    if total and not _elastic(obj):
        patch.set_default(SPEC.child("minAvailable"), total, unset=lambda v: v is None)
    for event in RESTART_EVENTS:
        if not _covers(spec.get("policies"), event) and not _every_task_covers(tasks, event):
            patch.append(SPEC.child("policies"), {"event": event, "action": "RestartJob"})


def _elastic(obj: Mapping[str, Any]) -> bool:
    metadata = obj.get("metadata")
    annotations = metadata.get("annotations") if is_map(metadata) else None
    return is_elastic(annotations)


def _covers(policies: Any, event: str) -> bool:
    if not isinstance(policies, list):
        return False
    for policy in policies:
        if not is_map(policy):
            continue
        if policy.get("event") in (event, "*"):
            return True
        events = policy.get("events")
        if isinstance(events, list) and (event in events or "*" in events):
            return True
    return False


def _every_task_covers(tasks: list[tuple[int, Mapping[str, Any]]], event: str) -> bool:
    return bool(tasks) and all(_covers(task.get("policies"), event) for _, task in tasks)
