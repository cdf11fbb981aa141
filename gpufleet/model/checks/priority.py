"""Priority classes of gang workloads.

Kubernetes allows one ``globalDefault`` PriorityClass. ``preemptionPolicy:
PreemptLowerPriority`` lets kube-scheduler evict single pods of running gangs to make
room, which breaks each of them and frees too little to run anything; Kueue and
Volcano preempt whole workloads instead, so every class here must use ``Never``
(see GANG504). Equal values are allowed. Registered in ``CHECKS``.
"""

from __future__ import annotations

from typing import Iterable

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.fleet import Fleet
from gpufleet.yamlin.errors import Issue


def check(fleet: Fleet) -> Iterable[Issue]:
    first_default: int | None = None
    for i, pc in enumerate(fleet.priority_classes):
        base = FieldPath.of("priorityClasses", i)
        if pc.global_default:
            if first_default is not None:
                yield Issue(
                    base.child("globalDefault"),
                    f"priorityClasses[{first_default}] is already the global default; Kubernetes allows one",
                    "set globalDefault: true on one class only",
                )
            else:
                first_default = i
        if pc.preemption_policy == "PreemptLowerPriority":
            yield Issue(
                base.child("preemptionPolicy"),
                "PreemptLowerPriority lets kube-scheduler evict single pods of running gangs; gangs must be preempted whole by Kueue or Volcano",
                "set preemptionPolicy: Never",
            )
