"""Reader of Kubernetes' own Workload and PodGroup (``scheduling.k8s.io``): kube-scheduler's GangScheduling at v1.37.2.

Follows ``kubernetes v1.37.2`` ``pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go``
(pods of a PodGroup wait in PreEnqueue until its gang ``minCount`` exist, and at Permit until that
many are assumed) and the API shapes of :mod:`gpufleet.kubetypes.workload_api` (a Workload's
``podGroupTemplates[i].schedulingPolicy.gang.minCount``, 1.35's ``podGroups[i].policy.gang``; a
PodGroup's ``spec.schedulingPolicy.gang.minCount``; ``basic`` policies are pod by pod). Pods join with
``spec.schedulingGroup.podGroupName`` (:mod:`..groupobjects` lists them).
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.workloads.contract.groupobjects import group_contract, workload_contract
from gpufleet.workloads.contract.registry import Run, reader
from gpufleet.workloads.contract.types import Contract

SOURCE = "kubernetes v1.37.2 pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go"


@reader("scheduling.k8s.io", "PodGroup", source=SOURCE)
def native_pod_group(obj: Mapping[str, Any], run: Run) -> Contract:
    return group_contract(obj, run, "native", SOURCE)


@reader("scheduling.k8s.io", "Workload", source=SOURCE)
def native_workload(obj: Mapping[str, Any], run: Run) -> Contract:
    return workload_contract(obj, SOURCE)
