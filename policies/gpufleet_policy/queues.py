"""Queue references checked against the queues the same stack declares (GANG104's stack form).

Called by ``stack`` for the rule ``GANG104`` (undeclared-queue). The engine's GANG104
compares a workload's queue with the fleet model; here the stack itself is the
source of truth: a workload's ``kueue.x-k8s.io/queue-name`` label must name a
LocalQueue declared in the stack in the workload's namespace, and a Volcano queue
(``spec.queue``, Kubeflow ``schedulingPolicy.queue``, the queue annotation) must name
a Volcano Queue declared in the stack (Volcano's own ``default`` queue always
exists). A kind of reference is only checked when the stack declares at least one
queue of that kind (a workload-only stack has nothing to compare with). With a fleet
context the per-resource GANG104 policy already checks every queue against the fleet
model (which the stack's queues are rendered from), so ``stack`` skips this check then
rather than report the same queue twice.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Mapping

from gpufleet import workloads
from gpufleet.fieldpath import FieldPath
from gpufleet.rules.api import Violation
from gpufleet.workloads import keys

LOCAL_QUEUE = ("kueue.x-k8s.io", "LocalQueue")
VOLCANO_QUEUE = ("scheduling.volcano.sh", "Queue")
VOLCANO_DEFAULT_QUEUE = "default"


def _identity(obj: Mapping[str, Any]) -> tuple[str, str, str]:
    meta = workloads.as_map(obj.get("metadata"))
    return workloads.group_of(obj), str(obj.get("kind", "")), str(meta.get("name", ""))


def declared(objs: Iterable[Mapping[str, Any]]) -> tuple[set[tuple[str, str]], set[str]]:
    """(namespace, LocalQueue) pairs and Volcano Queue names the stack declares."""
    local: set[tuple[str, str]] = set()
    volcano: set[str] = set()
    for obj in objs:
        group, kind, name = _identity(obj)
        if (group, kind) == LOCAL_QUEUE:
            local.add((str(workloads.as_map(obj.get("metadata")).get("namespace") or "default"), name))
        elif (group, kind) == VOLCANO_QUEUE:
            volcano.add(name)
    return local, volcano


def declares_any(objs: Iterable[Mapping[str, Any]]) -> tuple[bool, bool]:
    kinds = {_identity(obj)[:2] for obj in objs}
    return LOCAL_QUEUE in kinds, VOLCANO_QUEUE in kinds


def violations(obj: Mapping[str, Any], local: set[tuple[str, str]], volcano: set[str],
               check_local: bool, check_volcano: bool) -> Iterator[Violation]:
    """The undeclared queue references of one workload."""
    view = workloads.view(obj)
    if view is None:
        return
    namespace = view.namespace or "default"
    if check_local and view.queue_label and (namespace, view.queue_label) not in local:
        known = sorted(q for ns, q in local if ns == namespace)
        yield Violation(workloads.label_path(keys.QUEUE_LABEL),
                        f"LocalQueue {view.queue_label!r} is not declared in namespace {namespace!r} by this stack"
                        f" (declared there: {', '.join(known) or 'none'}), so Kueue never admits the workload",
                        f"use one of the namespace's LocalQueues ({', '.join(known) or 'declare one first'})")
    if check_volcano and view.volcano_queue and view.volcano_queue not in volcano | {VOLCANO_DEFAULT_QUEUE}:
        yield Violation(view.volcano_queue_path or FieldPath.of("spec", "queue"),
                        f"Volcano queue {view.volcano_queue!r} is not declared by this stack"
                        f" (declared: {', '.join(sorted(volcano)) or 'none'}), so the job stays Pending",
                        "use a Volcano Queue this stack declares")
