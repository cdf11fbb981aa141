"""Reader of the scheduler-plugins PodGroup (``scheduling.x-k8s.io``): the Coscheduling plugin at v0.35.

Follows ``sigs.k8s.io/scheduler-plugins v0.35.4`` ``pkg/coscheduling/core/core.go``
(``PreFilter``: a pod waits until ``spec.minMember`` pods of its group exist; ``Permit``: until that
many are assumed, for at most ``scheduleTimeoutSeconds``). The group is the user's; its pods come from
the workloads whose pods carry ``scheduling.x-k8s.io/pod-group`` (:mod:`..groupobjects`).
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.workloads.contract.groupobjects import group_contract
from gpufleet.workloads.contract.registry import Run, reader
from gpufleet.workloads.contract.types import Contract

SOURCE = "scheduler-plugins v0.35.4 pkg/coscheduling/core/core.go PreFilter, Permit"


@reader("scheduling.x-k8s.io", "PodGroup", source=SOURCE)
def coscheduling_pod_group(obj: Mapping[str, Any], run: Run) -> Contract:
    return group_contract(obj, run, "coscheduling", SOURCE)
